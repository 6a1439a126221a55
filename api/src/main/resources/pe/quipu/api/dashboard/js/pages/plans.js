// Plans: the operator's plan table (GET /v1/plans), with the account's own plan marked.
import { api, signedIn } from "../api.js";
import { h, badge } from "../dom.js";
import { number } from "../format.js";

export async function plansPage(container) {
  const [plans, usage] = await Promise.all([
    api("GET", "/v1/plans"),
    signedIn() ? api("GET", "/v1/usage") : Promise.resolve(null),
  ]);
  const current = usage ? usage.plan : null;
  container.append(
    h("h1", {}, "Planes"),
    h("p", { class: "muted" }, "La cuota se cuenta por mes calendario de Lima: cada consulta cuesta 1 unidad y un lote de N RUC, N unidades. ",
      "Para cambiar de plan escribe al operador de este Quipu."),
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Tabla de planes" },
      h("table", { id: "plans-table", class: "stack" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, "Plan"),
          h("th", { scope: "col", class: "num" }, "Cuota mensual"),
          h("th", { scope: "col", class: "num" }, "Solicitudes por minuto"),
          h("th", { scope: "col", class: "num" }, "RUC por lote"),
          h("th", { scope: "col", class: "num" }, "Webhooks"),
          h("th", { scope: "col", class: "num" }, "Listas"),
          h("th", { scope: "col", class: "num" }, "RUC vigilados"))),
        h("tbody", {}, plans.items.map((plan) => h("tr", { class: plan.name === current ? "current" : null,
          "data-plan": plan.name, "aria-current": plan.name === current ? "true" : null },
        h("th", { scope: "row" }, plan.name, plan.name === current ? [" ", badge("Tu plan", "ok")] : null),
        h("td", { class: "num", "data-label": "Cuota mensual" }, number(plan.monthlyQuota)),
        h("td", { class: "num", "data-label": "Solicitudes por minuto" }, number(plan.rateLimitRpm)),
        h("td", { class: "num", "data-label": "RUC por lote" }, number(Math.min(plan.batchCap, 100))),
        h("td", { class: "num", "data-label": "Webhooks" }, number(plan.webhookEndpoints)),
        h("td", { class: "num", "data-label": "Listas" }, number(plan.watchlists)),
        h("td", { class: "num", "data-label": "RUC vigilados" }, number(plan.watchlistRucs))))))),
    usage ? h("p", { class: "muted", id: "plans-own" }, `Tu cuenta: ${number(usage.monthlyQuota.limit)} unidades al mes y ${number(usage.rateLimitRpm)} solicitudes por minuto.`) : null);
}
