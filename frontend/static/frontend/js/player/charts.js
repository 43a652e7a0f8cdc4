// The player's page drawings, as SVG built here (no chart library): the rating along the
// rated days, and a year's calendar of the days played. The geometry is pure (tested with
// node); `svg` only turns it into elements.

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// Points of a line chart of `values` in a `width` × `height` box with `pad` on every side:
// the first value at the left, the last at the right, the highest at the top. A single value
// sits in the middle; equal values draw a level line through the middle.
export function linePoints(values, width, height, pad = 8) {
  if (!values.length) return { points: [], low: null, high: null };
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low;
  const across = width - 2 * pad;
  const down = height - 2 * pad;
  const points = values.map((value, i) => ({
    x: values.length === 1 ? width / 2 : pad + (across * i) / (values.length - 1),
    y: span === 0 ? height / 2 : pad + down * (1 - (value - low) / span),
  }));
  return { points, low, high };
}

export function ratingChart(days, label) {
  const width = 480;
  const height = 120;
  const { points, low, high } = linePoints(days.map((day) => day.rating), width, height);
  const chart = svg("svg", {
    class: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": label, preserveAspectRatio: "none",
  });
  if (!points.length) return chart;
  chart.append(svg("polyline", {
    points: points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" "),
    fill: "none", class: "rating-line",
  }));
  points.forEach((p, i) => chart.append(svg("circle", { cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: 3, class: "rating-dot" },
    svg("title", { text: `${days[i].date}: ${days[i].rating.toFixed(1)} (rank ${days[i].rank} of ${days[i].players})` }))));
  chart.dataset.low = low.toFixed(1);
  chart.dataset.high = high.toFixed(1);
  return chart;
}

// The calendar's cells: one per day of the `weeks` whole weeks (Monday first) that end with
// the week of `today` (an ISO date), column = week, row = weekday; each with the day's
// games of `days` ({date, won, …}) and its kind: "won" (a daily won), "played", or "none".
export function calendarCells(days, today, weeks = 53) {
  const byDate = new Map();
  for (const day of days) {
    const games = byDate.get(day.date) || [];
    games.push(day);
    byDate.set(day.date, games);
  }
  const end = new Date(`${today}T00:00:00Z`);
  const weekday = (end.getUTCDay() + 6) % 7; // Monday 0
  const first = new Date(end);
  first.setUTCDate(end.getUTCDate() - weekday - 7 * (weeks - 1));
  const cells = [];
  for (let n = 0; n < weeks * 7; n += 1) {
    const date = new Date(first);
    date.setUTCDate(first.getUTCDate() + n);
    if (date > end) break;
    const iso = date.toISOString().slice(0, 10);
    const games = byDate.get(iso) || [];
    const kind = games.some((g) => g.won) ? "won" : games.length ? "played" : "none";
    cells.push({ date: iso, week: Math.floor(n / 7), weekday: n % 7, games, kind });
  }
  return cells;
}

export function calendarChart(days, today, label) {
  const size = 11;
  const cells = calendarCells(days, today);
  const weeks = cells.length ? cells[cells.length - 1].week + 1 : 0;
  const chart = svg("svg", {
    class: "calendar-chart", viewBox: `0 0 ${weeks * size} ${7 * size}`, role: "img", "aria-label": label,
  });
  for (const cell of cells) {
    const words = cell.games.map((g) => `${g.variant} ${g.won ? "won" : "not won"}, ${g.score}`).join("; ");
    chart.append(svg("rect", {
      x: cell.week * size, y: cell.weekday * size, width: size - 2, height: size - 2, rx: 2,
      class: `day ${cell.kind}`, "data-date": cell.date,
    }, svg("title", { text: `${cell.date}: ${words || "not played"}` })));
  }
  return chart;
}
