// Draws the board's plotly figures from the JSON the server embedded (python plotly -> to_json).
(function () {
  function draw(id) {
    var data = document.getElementById(id + "-data");
    var target = document.getElementById(id);
    if (!data || !target || typeof Plotly === "undefined") return;
    var figure = JSON.parse(data.textContent);
    Plotly.newPlot(target, figure.data, figure.layout, { responsive: true, displaylogo: false, displayModeBar: false });
  }
  draw("phase-chart");
  draw("funnel-chart");
})();
