// Draws the compare page's chart from the JSON the server embedded (kept out of the page so the
// Content-Security-Policy can forbid inline scripts).
(function () {
  var data = document.getElementById("compare-chart-data");
  if (!data || typeof Plotly === "undefined") return;
  var figure = JSON.parse(data.textContent);
  Plotly.newPlot("compare-chart", figure.data, figure.layout, {displaylogo: false, displayModeBar: false, responsive: true});
})();

// The shareable link selects itself on click (a listener here: the CSP forbids onclick="").
document.querySelectorAll("input.select-on-click").forEach(function (input) {
  input.addEventListener("click", function () { input.select(); });
});
