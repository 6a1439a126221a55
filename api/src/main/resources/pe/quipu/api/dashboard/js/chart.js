// Requests per day as an SVG bar chart, drawn through the DOM at the width it is given (no library, no canvas): it
// stays sharp, its text stays readable at any width, and the same numbers are offered as a table beside it.
import { s, h, uid } from "./dom.js";
import { number, count, date } from "./format.js";

const HEIGHT = 220;
const PAD = { top: 16, right: 12, bottom: 28, left: 44 };

/** A "nice" upper bound for the axis: 1, 2 or 5 times a power of ten, at least the maximum. */
function niceMax(max) {
  if (max <= 4) {
    return 4;
  }
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= max) {
      return step * power;
    }
  }
  return 10 * power;
}

/**
 * Draws days ([{fecha, requests}]) into container at its current width; today's bar stands out. Every bar carries
 * data-fecha and data-requests, and a title read by screen readers and shown on hover.
 */
export function drawChart(container, days, today) {
  const width = Math.max(280, Math.floor(container.clientWidth || 600));
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const max = niceMax(Math.max(0, ...days.map((d) => d.requests)));
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, Math.min(28, slot * 0.7));
  const titleId = uid("chart-title");
  const svg = s("svg", { viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: "img", "aria-labelledby": titleId,
    "data-chart": "requests" });
  const total = days.reduce((sum, d) => sum + d.requests, 0);
  svg.append(s("title", { id: titleId }, `Solicitudes por día: ${count(total, "solicitud", "solicitudes")} en ${count(days.length, "día", "días")}`));
  for (const fraction of [0, 0.5, 1]) {
    const y = PAD.top + plotHeight * (1 - fraction);
    svg.append(s("line", { class: fraction === 0 ? "axis" : "grid-line", x1: PAD.left, x2: width - PAD.right, y1: y, y2: y }));
    svg.append(s("text", { x: PAD.left - 6, y: y + 4, "text-anchor": "end" }, number(max * fraction)));
  }
  // Day labels: as many as fit, always the first and today's (without a neighbour too close to it).
  const every = Math.max(1, Math.ceil(24 / slot));
  const todayIndex = days.findIndex((d) => d.fecha === today);
  days.forEach((day, i) => {
    const x = PAD.left + slot * i + (slot - barWidth) / 2;
    const barHeight = max === 0 ? 0 : (plotHeight * day.requests) / max;
    const isToday = day.fecha === today;
    const bar = s("rect", { class: isToday ? "bar today" : "bar", x: x.toFixed(1), y: (PAD.top + plotHeight - barHeight).toFixed(1),
      width: barWidth.toFixed(1), height: Math.max(day.requests > 0 ? 1 : 0, barHeight).toFixed(1),
      "data-fecha": day.fecha, "data-requests": day.requests },
    s("title", {}, `${date(day.fecha)}: ${count(day.requests, "solicitud", "solicitudes")}`));
    svg.append(bar);
    if (isToday || (i % every === 0 && (todayIndex < 0 || Math.abs(i - todayIndex) >= every))) {
      svg.append(s("text", { x: (PAD.left + slot * i + slot / 2).toFixed(1), y: HEIGHT - 8, "text-anchor": "middle" },
        String(Number(day.fecha.slice(8)))));
    }
  });
  container.replaceChildren(svg);
}

/** The chart's numbers as a table, for whoever does not see the bars. */
export function chartTable(days) {
  return h("details", {},
    h("summary", {}, "Ver las cifras por día"),
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Solicitudes por día" },
      h("table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Día"), h("th", { scope: "col", class: "num" }, "Solicitudes"),
          h("th", { scope: "col", class: "num" }, "Unidades"))),
        h("tbody", {}, days.map((d) => h("tr", {}, h("td", {}, date(d.fecha)), h("td", { class: "num" }, number(d.requests)),
          h("td", { class: "num" }, number(d.units))))))));
}
