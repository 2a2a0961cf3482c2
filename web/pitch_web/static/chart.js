// Draws each figure's rating chart: one line per bot, Elo against games played, as SVG.
// The data is the JSON in the figure's <script class="rating-data">: [{bot, points: [[games, rating], ...]}].
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7e8c", "#57606a"];
  const WIDTH = 800, HEIGHT = 320, LEFT = 52, RIGHT = 150, TOP = 12, BOTTOM = 36;

  function element(name, attributes, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function label(parent, x, y, text, anchor) {
    const node = element("text", { x, y, "text-anchor": anchor || "middle" }, parent);
    node.textContent = text;
    return node;
  }

  // About five round steps between low and high (whole numbers if asked).
  function ticks(low, high, whole) {
    const span = high - low || 1;
    const raw = whole ? Math.max(1, span / 5) : span / 5;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
    const values = [];
    for (let value = Math.ceil(low / step) * step; value <= high; value += step) values.push(value);
    return values;
  }

  function draw(svg, series) {
    const points = series.flatMap((line) => line.points);
    if (!points.length) return;
    const maxGames = Math.max(1, ...points.map((p) => p[0]));
    let low = Math.min(...points.map((p) => p[1]));
    let high = Math.max(...points.map((p) => p[1]));
    const pad = Math.max(10, (high - low) * 0.05);
    low -= pad;
    high += pad;
    const x = (games) => LEFT + (games / maxGames) * (WIDTH - LEFT - RIGHT);
    const y = (rating) => TOP + (1 - (rating - low) / (high - low)) * (HEIGHT - TOP - BOTTOM);

    const grid = element("g", { class: "grid" }, svg);
    for (const value of ticks(low, high)) {
      element("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: y(value), y2: y(value) }, grid);
      label(grid, LEFT - 6, y(value) + 4, String(Math.round(value)), "end");
    }
    const axis = element("g", { class: "axis" }, svg);
    element("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: HEIGHT - BOTTOM, y2: HEIGHT - BOTTOM }, axis);
    for (const value of ticks(0, maxGames, true)) {
      label(axis, x(value), HEIGHT - BOTTOM + 16, String(value));
    }
    label(axis, (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 4, "games played");

    const legend = element("g", { class: "legend" }, svg);
    series.forEach((line, index) => {
      const colour = COLOURS[index % COLOURS.length];
      const path = line.points.map((p, i) => `${i ? "L" : "M"}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`);
      const drawn = element("path", { class: "series", d: path.join(""), stroke: colour }, svg);
      element("title", {}, drawn).textContent = line.bot;
      const last = line.points[line.points.length - 1];
      const row = TOP + 8 + index * 18;
      element("rect", { x: WIDTH - RIGHT + 12, y: row - 8, width: 12, height: 4, fill: colour }, legend);
      label(legend, WIDTH - RIGHT + 30, row - 2, `${line.bot} ${Math.round(last[1])}`, "start");
    });
  }

  for (const figure of document.querySelectorAll("figure.chart")) {
    const svg = figure.querySelector("svg.rating-chart");
    const data = figure.querySelector("script.rating-data");
    if (svg && data) draw(svg, JSON.parse(data.textContent));
  }
})();
