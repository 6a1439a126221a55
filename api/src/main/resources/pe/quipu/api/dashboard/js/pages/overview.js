// Overview: plan, this month's quota, the per-minute rate, the data's freshness and requests per day.
import { api } from "../api.js";
import { h, replace, alertBox, busy } from "../dom.js";
import { number, count, dateTime, date, day } from "../format.js";
import { drawChart, chartTable } from "../chart.js";

function stat(label, value, extra, id) {
  return h("div", { class: "card" }, h("p", { class: "stat-label" }, label), h("p", { class: "stat", id }, value), extra || null);
}

// One source's latest publication of one currency, as /v1/status lists it under tipoCambio.
function rateRow(label, rate) {
  return h("tr", {}, h("td", {}, label), h("td", {}, rate && rate.fecha ? `Publicado el ${date(rate.fecha)}` : "Sin datos aún"));
}

export async function overviewPage(container) {
  const alert = alertBox();
  const body = h("div", {});
  const update = h("button", { type: "button", class: "button secondary", id: "overview-refresh" }, "Actualizar");
  container.append(h("div", { class: "spread" }, h("h1", {}, "Resumen"), update), alert.element, body);

  let resizeObserver = null;
  async function load() {
    const [usage, status, daily] = await Promise.all([
      api("GET", "/v1/usage"),
      api("GET", "/v1/status"),
      api("GET", "/v1/usage/daily"),
    ]);
    const quota = usage.monthlyQuota;
    const percent = quota.limit > 0 ? Math.min(100, Math.round((quota.used / quota.limit) * 100)) : 100;
    const meterLabel = h("span", { class: "visually-hidden", id: "quota-meter-label" }, "Cuota usada este mes");
    const meter = h("meter", { min: 0, max: Math.max(1, quota.limit), value: quota.used, low: quota.limit * 0.8,
      high: quota.limit * 0.95, optimum: 0, "aria-labelledby": "quota-meter-label" });
    const chart = h("div", { class: "chart", id: "usage-chart" });
    const today = daily.to;
    replace(body,
      h("div", { class: "grid" },
        stat("Plan", usage.plan, h("p", { class: "muted" }, h("a", { href: "#/planes" }, "Comparar planes")), "overview-plan"),
        stat("Usado este mes", number(quota.used), h("div", {}, meterLabel, meter,
          h("p", { class: "muted" }, `${percent} % de ${number(quota.limit)} unidades`)), "overview-used"),
        stat("Restante", number(quota.remaining), h("p", { class: "muted" }, `La cuota se renueva el ${day(usage.period.end)}`), "overview-remaining"),
        stat("Límite por minuto", `${number(usage.rateLimitRpm)}`, h("p", { class: "muted" }, "solicitudes por minuto"), "overview-rpm")),
      h("section", { class: "card", "aria-labelledby": "chart-heading" },
        h("div", { class: "spread" },
          h("h2", { id: "chart-heading" }, "Solicitudes por día este mes"),
          h("p", { class: "muted", id: "overview-requests-total" }, `${count(daily.total.requests, "solicitud", "solicitudes")}, ${count(daily.total.units, "unidad", "unidades")}`)),
        chart,
        daily.total.requests === 0
          ? h("p", { class: "muted", id: "chart-empty" }, "Aún no hay consultas este mes. Crea una clave en ",
            h("a", { href: "#/claves" }, "Claves"), " y prueba GET /v1/ruc/{ruc} desde tu sistema o desde ",
            h("a", { href: "/docs" }, "la documentación"), ".")
          : null,
        chartTable(daily.days)),
      h("section", { class: "card", "aria-labelledby": "freshness-heading" },
        h("h2", { id: "freshness-heading" }, "Frescura de los datos"),
        h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": "freshness-heading" },
          h("table", {},
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Fuente"), h("th", { scope: "col" }, "Estado"))),
            h("tbody", {},
              h("tr", {}, h("td", {}, "Padrón RUC (SUNAT)"), h("td", { id: "fresh-registry" },
                status.registry.loadedAt ? `${number(status.registry.rows)} contribuyentes, cargado el ${dateTime(status.registry.loadedAt)}`
                  : "Aún no cargado")),
              h("tr", {}, h("td", {}, "Ubigeos (INEI)"), h("td", {}, `${number(status.ubigeos.count)} distritos`)),
              rateRow("Tipo de cambio USD (BCRP)", status.tipoCambio.bcrp.USD),
              rateRow("Tipo de cambio EUR (BCRP)", status.tipoCambio.bcrp.EUR),
              rateRow("Tipo de cambio USD (SBS)", status.tipoCambio.sbs.USD),
              rateRow("Tipo de cambio USD (SUNAT)", status.tipoCambio.sunat.USD)))),
        h("p", { class: "muted" }, `Versión de Quipu: ${status.version}`)));
    drawChart(chart, daily.days, today);
    if (resizeObserver) {
      resizeObserver.disconnect();
    }
    // Redrawn at the new width (its text stays 12 px at any width), once the page is in place and after any resize.
    let lastWidth = 0;
    resizeObserver = new ResizeObserver(() => {
      if (chart.isConnected && Math.abs(chart.clientWidth - lastWidth) > 8) {
        lastWidth = chart.clientWidth;
        drawChart(chart, daily.days, today);
      }
    });
    resizeObserver.observe(chart);
  }

  update.addEventListener("click", async () => {
    alert.clear();
    try {
      await busy(update, "Actualizando…", load);
    } catch (error) {
      alert.error(error);
    }
  });
  await load();
}
