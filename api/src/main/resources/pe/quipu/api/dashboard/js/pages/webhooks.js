// Webhooks: the endpoints (create with events, the secret shown once; edit; send a test; rotate the secret; delete)
// and, per endpoint, the delivery history with each attempt's detail and a retry.
import { api } from "../api.js";
import { h, replace, field, checkbox, badge, busy, alertBox, confirmDialog, secretPanel, uid } from "../dom.js";
import { dateTime, number, EVENTS, deliveryStatus, deliveryError } from "../format.js";

function eventChecks(prefix, selected) {
  return EVENTS.map((event) => checkbox(event.label, { name: "events", value: event.name,
    id: `${prefix}-${event.name.replace(/[^a-z]/g, "-")}`, checked: selected.includes(event.name) }));
}

function chosen(checks) {
  return checks.filter((c) => c.input.checked).map((c) => c.input.value);
}

export async function webhooksPage(container, { go }) {
  const alert = alertBox();
  const secretSlot = h("div", {});
  const list = h("div", { id: "webhooks-list" });
  const createSection = h("section", { class: "card" });
  const full = h("p", { class: "alert info", id: "webhooks-full", hidden: true });
  const [usage, plans] = await Promise.all([api("GET", "/v1/usage"), api("GET", "/v1/plans")]);
  const plan = plans.items.find((p) => p.name === usage.plan);
  const allowed = plan ? plan.webhookEndpoints : 0;

  function showSecret(endpoint, title, extra) {
    const panel = secretPanel({
      title,
      secret: endpoint.secret,
      warning: "copia el secreto de firma ahora; Quipu no lo volverá a mostrar. Con él tu receptor verifica x-quipu-signature.",
      extra,
      onDone: () => document.getElementById("webhooks-heading").focus(),
    });
    replace(secretSlot, panel.element);
    panel.focus();
  }

  async function reload() {
    const endpoints = (await api("GET", "/v1/webhooks")).items;
    if (endpoints.length === 0) {
      replace(list, h("p", { class: "empty" }, allowed > 0
        ? "Aún no tienes webhooks. Crea uno abajo con la URL de tu receptor y los eventos que te interesan; luego envíale una prueba."
        : ["Tu plan (", usage.plan, ") no incluye webhooks. Están disponibles desde el plan starter: ",
          h("a", { href: "#/planes" }, "ver planes"), "."]));
    } else {
      replace(list, h("ul", { class: "list" }, endpoints.map((endpoint) => endpointItem(endpoint))));
    }
    // At the plan's count, the form would only meet 403 forbidden_plan: say so instead (with at least one shown).
    const atCap = endpoints.length > 0 && endpoints.length >= allowed;
    createSection.hidden = atCap;
    full.hidden = !atCap;
    replace(full, allowed === 1 ? "Ya tienes el webhook que permite tu plan. " : `Ya tienes los ${number(allowed)} webhooks que permite tu plan. `,
      "Para otro, elimina uno o ", h("a", { href: "#/planes" }, "mira los planes"), ".");
    return endpoints;
  }

  function endpointItem(endpoint) {
    const item = h("li", { class: "item", "data-webhook": endpoint.id });
    const editSlot = h("div", {});
    const test = h("button", { type: "button", class: "button small", "data-action": "test" }, "Enviar prueba");
    const edit = h("button", { type: "button", class: "button secondary small", "data-action": "edit", "aria-expanded": "false" }, "Editar");
    const rotate = h("button", { type: "button", class: "button secondary small", "data-action": "rotate" }, "Rotar secreto");
    const remove = h("button", { type: "button", class: "button danger small", "data-action": "delete" }, "Eliminar");
    test.addEventListener("click", async () => {
      alert.clear();
      try {
        const sent = await busy(test, "Enviando…", () => api("POST", `/v1/webhooks/${endpoint.id}/test`));
        go(`webhooks/${endpoint.id}`, `Prueba enviada: evento ${sent.eventId}.`);
      } catch (error) {
        alert.error(error);
      }
    });
    edit.addEventListener("click", () => {
      if (editSlot.firstChild) {
        editSlot.replaceChildren();
        edit.setAttribute("aria-expanded", "false");
        return;
      }
      edit.setAttribute("aria-expanded", "true");
      editSlot.append(editForm(endpoint, () => { editSlot.replaceChildren(); edit.setAttribute("aria-expanded", "false"); }));
      editSlot.querySelector("input").focus();
    });
    rotate.addEventListener("click", async () => {
      const ok = await confirmDialog({
        title: "¿Rotar el secreto de firma?",
        body: "Se genera un secreto nuevo. Durante 24 horas cada entrega lleva dos firmas (v1 con el nuevo, v0 con el anterior) para que actualices tu receptor sin perder eventos.",
        confirm: "Rotar secreto",
        danger: false,
      });
      if (!ok) {
        return;
      }
      alert.clear();
      try {
        const rotated = await busy(rotate, "Rotando…", () => api("POST", `/v1/webhooks/${endpoint.id}/rotate`));
        await reload();
        showSecret(rotated, "Secreto rotado", h("p", { id: "webhook-grace-end" },
          `El secreto anterior sigue firmando (v0) hasta el ${dateTime(rotated.previousSecretExpiresAt)}.`));
      } catch (error) {
        alert.error(error);
      }
    });
    remove.addEventListener("click", async () => {
      const ok = await confirmDialog({
        title: "¿Eliminar este webhook?",
        body: `Se dejan de enviar eventos a ${endpoint.url}. No se puede deshacer.`,
        confirm: "Eliminar",
      });
      if (!ok) {
        return;
      }
      alert.clear();
      try {
        await busy(remove, "Eliminando…", () => api("DELETE", `/v1/webhooks/${endpoint.id}`));
        await reload();
        alert.success("Webhook eliminado.");
      } catch (error) {
        alert.error(error);
      }
    });
    const state = endpoint.active ? badge("Activo", "ok") : badge("Inactivo", "idle");
    item.append(
      h("h3", {}, h("span", { class: "mono" }, endpoint.url), state),
      h("dl", {},
        h("dt", {}, "Eventos"), h("dd", {}, endpoint.events.join(", ")),
        h("dt", {}, "Creado"), h("dd", {}, dateTime(endpoint.createdAt)),
        endpoint.disabledReason ? [h("dt", {}, "Desactivado por"), h("dd", {}, endpoint.disabledReason)] : null,
        endpoint.previousSecretExpiresAt ? [h("dt", {}, "Secreto anterior hasta"), h("dd", {}, dateTime(endpoint.previousSecretExpiresAt))] : null),
      h("div", { class: "row" }, h("a", { class: "button secondary small", href: `#/webhooks/${endpoint.id}`, "data-action": "deliveries" }, "Ver entregas"),
        test, edit, rotate, remove),
      editSlot);
    return item;
  }

  function editForm(endpoint, close) {
    const formAlert = alertBox();
    const prefix = uid("edit");
    const url = field("URL del receptor", { type: "url", name: "url", id: `${prefix}-url`, required: true, value: endpoint.url });
    const checks = eventChecks(prefix, endpoint.events);
    const active = checkbox("Activo (recibe eventos)", { name: "active", id: `${prefix}-active`, checked: endpoint.active });
    const save = h("button", { type: "submit", class: "button" }, "Guardar cambios");
    const cancel = h("button", { type: "button", class: "button secondary" }, "Cancelar");
    cancel.addEventListener("click", close);
    const form = h("form", { novalidate: true, class: "card", "aria-label": `Editar ${endpoint.url}` },
      formAlert.element, url.element,
      h("fieldset", {}, h("legend", {}, "Eventos"), h("div", { class: "checks" }, checks.map((c) => c.element))),
      active.element, h("div", { class: "row" }, save, cancel));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      formAlert.clear();
      try {
        await busy(save, "Guardando…", () => api("PATCH", `/v1/webhooks/${endpoint.id}`,
          { body: { url: url.input.value.trim(), events: chosen(checks), active: active.input.checked } }));
        await reload();
        alert.success("Webhook actualizado.");
      } catch (error) {
        formAlert.error(error);
      }
    });
    return form;
  }

  const createAlert = alertBox();
  const url = field("URL del receptor", { type: "url", name: "url", id: "webhook-url", required: true, placeholder: "https://tu-sistema.pe/webhooks/quipu",
    autocomplete: "off" }, "https:// en producción. Tu receptor debe responder 2xx en menos de 10 s.");
  const checks = eventChecks("event", ["endpoint.test"]);
  const submit = h("button", { type: "submit", class: "button", id: "webhook-create" }, "Crear webhook");
  const form = h("form", { novalidate: true, "aria-labelledby": "create-webhook-heading" },
    h("h2", { id: "create-webhook-heading" }, "Crear un webhook"),
    createAlert.element, url.element,
    h("fieldset", {}, h("legend", {}, "Eventos"), h("div", { class: "checks" }, checks.map((c) => c.element))),
    submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    createAlert.clear();
    try {
      const created = await busy(submit, "Creando…", () => api("POST", "/v1/webhooks",
        { body: { url: url.input.value.trim(), events: chosen(checks), active: true } }));
      form.reset();
      await reload();
      showSecret(created, "Webhook creado");
    } catch (error) {
      createAlert.error(error);
    }
  });

  container.append(
    h("h1", {}, "Webhooks"),
    h("p", { class: "muted" }, `Quipu envía un POST firmado a tu URL cuando ocurre un evento de tu cuenta. Tu plan (${usage.plan}) permite ${number(allowed)} webhook${allowed === 1 ? "" : "s"}.`),
    alert.element,
    secretSlot,
    h("section", { class: "card", "aria-labelledby": "webhooks-heading" }, h("h2", { id: "webhooks-heading", tabindex: "-1" }, "Tus webhooks"), list),
    full,
    createSection);
  createSection.append(form);
  await reload();
}

/** One endpoint's delivery history; it refreshes itself while a delivery is pending or retrying. */
export async function webhookPage(container, id, { go, message }) {
  const alert = alertBox();
  if (message) {
    alert.info(message);
  }
  const endpoint = await api("GET", `/v1/webhooks/${encodeURIComponent(id)}`);
  const table = h("div", { id: "deliveries" });
  const progress = h("p", { role: "status", class: "muted", id: "deliveries-progress" });
  const update = h("button", { type: "button", class: "button secondary", id: "deliveries-refresh" }, "Actualizar");
  const test = h("button", { type: "button", class: "button", id: "deliveries-test" }, "Enviar prueba");
  let timer = null;
  let polls = 0;

  function deliveryRow(delivery) {
    const [text, tone] = deliveryStatus(delivery.status);
    const detailSlot = h("td", { colspan: 7, class: "full" });
    const detailRow = h("tr", { hidden: true }, detailSlot);
    const detail = h("button", { type: "button", class: "button secondary small", "data-action": "detail", "aria-expanded": "false",
      "aria-label": `Detalle de la entrega ${delivery.id}` }, "Detalle");
    const retry = h("button", { type: "button", class: "button secondary small", "data-action": "retry",
      "aria-label": `Reintentar la entrega ${delivery.id}` }, "Reintentar");
    detail.addEventListener("click", async () => {
      if (!detailRow.hidden) {
        detailRow.hidden = true;
        detail.setAttribute("aria-expanded", "false");
        return;
      }
      try {
        const full = await busy(detail, "Cargando…", () => api("GET", `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}`));
        replace(detailSlot, attempts(full));
        detailRow.hidden = false;
        detail.setAttribute("aria-expanded", "true");
        stop(); // the detail stays open: no refresh replaces it
      } catch (error) {
        alert.error(error);
      }
    });
    retry.addEventListener("click", async () => {
      alert.clear();
      try {
        await busy(retry, "Reintentando…", () => api("POST", `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`));
        alert.success("Entrega programada de nuevo.");
        await reload(true);
      } catch (error) {
        alert.error(error);
      }
    });
    return [
      h("tr", { "data-delivery": delivery.id, "data-status": delivery.status },
        h("td", { "data-label": "Evento" }, h("code", {}, delivery.eventType)),
        h("td", { "data-label": "Estado" }, badge(text, tone)),
        h("td", { class: "num", "data-label": "Intentos" }, number(delivery.attempts)),
        h("td", { class: "num", "data-label": "Código" }, delivery.responseCode ?? "—"),
        h("td", { class: "num", "data-label": "Latencia" }, delivery.latencyMs != null ? `${number(delivery.latencyMs)} ms` : "—"),
        h("td", { "data-label": "Último intento" }, dateTime(delivery.lastAttemptAt),
          delivery.error ? h("span", { class: "hint" }, deliveryError(delivery.error)) : null),
        h("td", { "data-label": "Acciones" }, h("div", { class: "row" }, detail, retry))),
      detailRow,
    ];
  }

  function attempts(full) {
    if (!full.attemptLog || full.attemptLog.length === 0) {
      return h("p", { class: "muted" }, "Aún sin intentos.");
    }
    return h("div", { class: "attempts", "data-attempts": "" },
      h("h3", {}, `Intentos de ${full.id}`),
      h("ol", {}, full.attemptLog.map((a) => h("li", {},
        h("p", {}, dateTime(a.attemptedAt), " · ", a.responseCode != null ? `HTTP ${a.responseCode}` : deliveryError(a.error),
          ` · ${number(a.latencyMs)} ms · `, h("code", {}, a.id)),
        a.responseBody ? h("pre", {}, a.responseBody) : h("p", { class: "muted" }, "Respuesta sin cuerpo.")))));
  }

  function stop() {
    clearTimeout(timer);
    timer = null;
    progress.textContent = "";
  }

  async function reload(watch) {
    const deliveries = (await api("GET", `/v1/webhooks/${endpoint.id}/deliveries`)).items;
    if (deliveries.length === 0) {
      replace(table, h("p", { class: "empty" }, "Sin entregas aún. Usa «Enviar prueba» para mandar un evento endpoint.test a tu receptor."));
    } else {
      replace(table, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Entregas" },
        h("table", { class: "stack" },
          h("thead", {}, h("tr", {}, ["Evento", "Estado", "Intentos", "Código", "Latencia", "Último intento", "Acciones"]
            .map((t, i) => h("th", { scope: "col", class: i >= 2 && i <= 4 ? "num" : null }, t)))),
          h("tbody", {}, deliveries.map(deliveryRow)))));
    }
    const open = deliveries.some((d) => d.status === "pending" || d.status === "retrying");
    if (watch) {
      polls = 0;
    }
    clearTimeout(timer);
    if (open && polls < 30) {
      polls += 1;
      progress.textContent = "Esperando la entrega…";
      timer = setTimeout(() => { if (table.isConnected) { reload(false).catch((e) => alert.error(e)); } }, 1000);
    } else {
      progress.textContent = open ? "La entrega sigue pendiente; actualiza más tarde." : "";
    }
  }

  update.addEventListener("click", async () => {
    alert.clear();
    try {
      await busy(update, "Actualizando…", () => reload(true));
    } catch (error) {
      alert.error(error);
    }
  });
  test.addEventListener("click", async () => {
    alert.clear();
    try {
      const sent = await busy(test, "Enviando…", () => api("POST", `/v1/webhooks/${endpoint.id}/test`));
      alert.info(`Prueba enviada: evento ${sent.eventId}.`);
      await reload(true);
    } catch (error) {
      alert.error(error);
    }
  });

  container.append(
    h("p", {}, h("a", { href: "#/webhooks" }, "← Webhooks")),
    h("h1", {}, "Entregas"),
    h("p", { class: "mono" }, endpoint.url),
    alert.element,
    h("div", { class: "row" }, test, update),
    progress,
    h("section", { class: "card", "aria-label": "Historial de entregas" }, h("h2", {}, "Últimas 100 entregas"), table));
  await reload(true);
}
