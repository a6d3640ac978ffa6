// Follows a queued or running run: polls its status.json and updates the phase cards.
// When the run ends, the page reloads once so the full drill-down (tables, windows) renders.
(function () {
  "use strict";
  var box = document.getElementById("run-status");
  if (!box || box.dataset.finished === "true") return;
  var url = box.dataset.statusUrl;
  var labels = { ran: "Ran", skipped: "Skipped", timeout: "Timed out", error: "Error", "n/a": "Not applicable", pending: "pending" };
  var delay = 1500;

  function score(value) {
    return value === null || value === undefined ? "—" : (100 * value).toFixed(1);
  }

  // The same words as the page's template (run_extras.wait_words).
  function waitWords(seconds) {
    if (seconds < 90) return "a minute";
    if (seconds < 5400) return Math.round(seconds / 60) + " minutes";
    return (seconds / 3600).toFixed(1) + " hours";
  }

  function queueText(data) {
    if (!data.queue_position) return "";
    var text = "· position " + data.queue_position + " in the queue";
    var wait = data.queue_wait_estimate;
    if (wait) {
      text += " · scored in about " + waitWords(wait.seconds) + " (an estimate: what the run being scored still needs, then each run ahead and this one at the mean scoring time of the last " + wait.from_runs + " runs of its kind)";
    }
    return text;
  }

  function update(data) {
    box.className = "run-status status-" + data.status;
    box.querySelector(".status-text").textContent = data.status.charAt(0).toUpperCase() + data.status.slice(1);
    box.querySelector(".queue-text").textContent = queueText(data);
    data.phases.forEach(function (phase) {
      var card = document.getElementById("phase-" + phase.phase);
      if (!card) return;
      card.querySelector(".score").textContent = score(phase.score);
      var status = card.querySelector(".status");
      status.textContent = labels[phase.status] || phase.status;
      status.className = "status status-" + phase.status.replace("/", "");
      card.querySelector(".time").textContent =
        phase.duration_seconds === null ? "" : phase.duration_seconds.toFixed(1) + " s";
    });
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        update(data);
        if (data.finished) {
          window.location.reload();
        } else {
          setTimeout(poll, delay);
        }
      })
      .catch(function () { setTimeout(poll, delay * 4); });
  }

  setTimeout(poll, delay);
})();
