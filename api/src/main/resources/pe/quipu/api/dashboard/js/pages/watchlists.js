// Listas de vigilancia: the account's watchlists (create or replace one from pasted or uploaded RUCs, showing the
// lines left out), their counts, the latest changes of one list with from → to, removing RUCs, and subscribing a
// webhook endpoint to ruc.changed.
import { api } from "../api.js";
import { h, replace, field, busy, alertBox, confirmDialog, uid } from "../dom.js";
import { dateTime, number } from "../format.js";

/** The text's lines, each reduced to its first field (a CSV's, a spreadsheet's or a plain list's). */
export function rucLines(text) {
  return text.split(/\r?\n/)
    .map((line, i) => ({ line: i + 1, value: line.split(/[,;|\t]/)[0].trim().replace(/^"|"$/g, "") }))
    .filter((l) => l.value !== "");
}

const KINDS = { added: "Apareció en el padrón", removed: "Salió del padrón", changed: "Cambió", padrones: "Listas de SUNAT" };
const FIELDS = { razonSocial: "Razón social", estado: "Estado", condicion: "Condición", tipo: "Tipo", ubigeo: "Ubigeo",
  direccion: "Dirección", ciiu: "CIIU" };

function changeDetail(change) {
  if (change.kind === "changed" && change.changes) {
    return h("ul", { class: "changes" }, Object.entries(change.changes).map(([name, c]) =>
      h("li", {}, h("strong", {}, FIELDS[name] || name), ": ", c.from ?? "—", " → ", c.to ?? "—")));
  }
  if (change.kind === "padrones" && change.padrones) {
    return h("ul", { class: "changes" },
      change.padrones.joined.map((p) => h("li", {}, "Entró a ", h("code", {}, p))),
      change.padrones.left.map((p) => h("li", {}, "Salió de ", h("code", {}, p))));
  }
  return null;
}

export async function watchlistsPage(container) {
  const alert = alertBox();
  const lists = h("div", { id: "watchlists-list" });
  const detail = h("section", { class: "card", id: "watchlist-detail", hidden: true, "aria-labelledby": "watchlist-detail-title" });
  const rejectedSlot = h("div", { id: "watchlist-rejected" });
  const subscribe = h("section", { class: "card", id: "watchlist-subscribe", "aria-labelledby": "watchlist-subscribe-title" });
  const [usage, plans] = await Promise.all([api("GET", "/v1/usage"), api("GET", "/v1/plans")]);
  const plan = plans.items.find((p) => p.name === usage.plan);

  async function reload() {
    const items = (await api("GET", "/v1/watchlists")).items;
    if (items.length === 0) {
      replace(lists, h("p", { class: "empty" }, "Aún no tienes listas. Crea una abajo pegando o subiendo los RUC de tus proveedores."));
      return items;
    }
    replace(lists, h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Tus listas de vigilancia" },
      h("table", { class: "stack", id: "watchlists-table" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, "Lista"),
          h("th", { scope: "col", class: "num" }, "RUC"),
          h("th", { scope: "col" }, "Actualizada"),
          h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Acciones")))),
        h("tbody", {}, items.map((list) => listRow(list))))));
    return items;
  }

  function listRow(list) {
    const open = h("button", { type: "button", class: "button secondary small", "data-action": "open" }, "Ver cambios");
    const remove = h("button", { type: "button", class: "button danger small", "data-action": "delete" }, "Eliminar");
    open.addEventListener("click", () => show(list.name));
    remove.addEventListener("click", async () => {
      const ok = await confirmDialog({ title: `¿Eliminar la lista ${list.name}?`,
        body: `Se dejan de vigilar sus ${number(list.count)} RUC. No se puede deshacer.`, confirm: "Eliminar" });
      if (!ok) {
        return;
      }
      alert.clear();
      try {
        await busy(remove, "Eliminando…", () => api("DELETE", `/v1/watchlists/${list.name}`));
        detail.hidden = true;
        await reload();
        alert.success(`Lista ${list.name} eliminada.`);
      } catch (error) {
        alert.error(error);
      }
    });
    return h("tr", { "data-watchlist": list.name },
      h("th", { scope: "row" }, h("code", {}, list.name)),
      h("td", { class: "num", "data-label": "RUC" }, number(list.count)),
      h("td", { "data-label": "Actualizada" }, dateTime(list.updatedAt)),
      h("td", { "data-label": "Acciones" }, h("div", { class: "row" }, open, remove)));
  }

  async function show(name) {
    const [page, rucs] = await Promise.all([
      api("GET", `/v1/watchlists/${name}/changes?limit=1000`),
      api("GET", `/v1/watchlists/${name}/rucs?limit=100`),
    ]);
    const latest = page.items.slice(-50).reverse();
    const rucItems = rucs.items.map((ruc) => {
      const take = h("button", { type: "button", class: "button secondary small", "data-remove": ruc,
        "aria-label": `Quitar ${ruc} de ${name}` }, "Quitar");
      const item = h("li", { class: "item compact" }, h("code", {}, ruc), take);
      take.addEventListener("click", async () => {
        alert.clear();
        try {
          await busy(take, "Quitando…", () => api("DELETE", `/v1/watchlists/${name}/rucs/${ruc}`));
          item.remove();
          await reload();
          alert.success(`RUC ${ruc} quitado de ${name}.`);
        } catch (error) {
          alert.error(error);
        }
      });
      return item;
    });
    replace(detail,
      h("h2", { id: "watchlist-detail-title", tabindex: "-1" }, "Lista ", h("code", {}, name)),
      h("h3", {}, "Últimos cambios (30 días)"),
      latest.length === 0
        ? h("p", { class: "empty", id: "watchlist-no-changes" }, "Sin cambios registrados desde que estos RUC están en la lista.")
        : h("ol", { class: "list", id: "watchlist-changes" }, latest.map((change) => h("li", { class: "item", "data-change": change.ruc },
          h("p", {}, h("code", {}, change.ruc), " · ", KINDS[change.kind] || change.kind, " · ", dateTime(change.at)),
          changeDetail(change)))),
      h("h3", {}, "RUC de la lista"),
      h("ul", { class: "list", id: "watchlist-rucs" }, rucItems),
      rucs.nextCursor ? h("p", { class: "muted" }, "Se muestran los primeros 100; la API los da todos (GET /v1/watchlists/", name, "/rucs).") : null);
    detail.hidden = false;
    detail.querySelector("h2").focus();
  }

  // Create or replace a list from pasted text or an uploaded file.
  const nameField = field("Nombre de la lista", { type: "text", name: "name", required: true, pattern: "[a-z0-9_\\-]{1,64}",
    autocomplete: "off", value: "proveedores" }, "De 1 a 64 caracteres: a-z, 0-9, - y _. Si ya existe, se reemplaza.");
  const textId = uid("rucs");
  const text = h("textarea", { id: textId, name: "rucs", rows: "8", class: "mono", spellcheck: "false",
    "aria-describedby": `${textId}-hint` });
  const fileId = uid("file");
  const file = h("input", { type: "file", id: fileId, accept: ".csv,.txt,text/csv,text/plain" });
  file.addEventListener("change", async () => {
    if (file.files.length > 0) {
      text.value = await file.files[0].text();
    }
  });
  const save = h("button", { type: "submit", class: "button" }, "Guardar lista");
  const form = h("form", { id: "watchlist-form", novalidate: true },
    nameField.element,
    h("div", { class: "field" },
      h("label", { for: textId }, "RUC, uno por línea",
        h("span", { class: "hint", id: `${textId}-hint` }, "Pega una columna de tu hoja de cálculo o sube un CSV o texto: se toma el primer campo de cada línea.")),
      text),
    h("div", { class: "field" }, h("label", { for: fileId }, "O sube un archivo"), file),
    h("div", { class: "row" }, save));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    alert.clear();
    replace(rejectedSlot);
    const name = nameField.input.value.trim();
    const lines = rucLines(text.value);
    try {
      const written = await busy(save, "Guardando…", () => api("PUT", `/v1/watchlists/${name}`,
        { body: { rucs: lines.map((l) => l.value) } }));
      await reload();
      alert.success(`Lista ${written.name}: ${number(written.count)} RUC vigilados.`);
      if (written.rejected.length > 0) {
        replace(rejectedSlot, h("div", { class: "alert info", role: "status" },
          h("p", {}, h("strong", {}, `${number(written.rejected.length)} líneas no son RUC válidos y se dejaron fuera:`)),
          h("ul", { id: "watchlist-rejected-lines" }, written.rejected.map((r) =>
            h("li", {}, `Línea ${lines[r.index].line}: `, h("code", {}, r.ruc ?? "—"), ` (${r.detail})`)))));
      }
      await show(written.name);
    } catch (error) {
      alert.error(error);
    }
  });

  async function renderSubscribe() {
    const endpoints = (await api("GET", "/v1/webhooks")).items;
    const parts = [h("h2", { id: "watchlist-subscribe-title" }, "Avisos al instante (ruc.changed)"),
      h("p", { class: "muted" }, "Cada carga que cambie un RUC vigilado envía un evento ruc.changed, firmado, a los webhooks suscritos.")];
    if (endpoints.length === 0) {
      parts.push(h("p", {}, plan && plan.webhookEndpoints > 0
        ? ["Aún no tienes webhooks: ", h("a", { href: "#/webhooks" }, "crea uno"), " con el evento ruc.changed."]
        : ["Tu plan (", usage.plan, ") no incluye webhooks; los cambios siguen visibles aquí. ", h("a", { href: "#/planes" }, "Ver planes"), "."]));
    } else {
      parts.push(h("ul", { class: "list", id: "watchlist-endpoints" }, endpoints.map((endpoint) => {
        const subscribed = endpoint.events.includes("ruc.changed");
        const add = h("button", { type: "button", class: "button small", "data-subscribe": endpoint.id }, "Suscribir a ruc.changed");
        add.addEventListener("click", async () => {
          alert.clear();
          try {
            await busy(add, "Suscribiendo…", () => api("PATCH", `/v1/webhooks/${endpoint.id}`,
              { body: { events: [...endpoint.events, "ruc.changed"] } }));
            await renderSubscribe();
            alert.success(`El webhook ${endpoint.url} recibirá ruc.changed.`);
          } catch (error) {
            alert.error(error);
          }
        });
        return h("li", { class: "item compact" }, h("code", {}, endpoint.url),
          subscribed ? h("span", { class: "badge ok" }, "Suscrito") : add);
      })));
    }
    replace(subscribe, ...parts);
  }

  container.append(
    h("h1", {}, "Listas de vigilancia"),
    h("p", { class: "muted" }, "Vigila a tus proveedores: Quipu te avisa cuando SUNAT cambia su estado, condición, dirección o su presencia en las listas. ",
      plan ? `Tu plan permite ${number(plan.watchlists)} lista${plan.watchlists === 1 ? "" : "s"} y ${number(plan.watchlistRucs)} RUC distintos.` : ""),
    alert.element,
    lists,
    detail,
    h("section", { class: "card", "aria-labelledby": "watchlist-form-title" },
      h("h2", { id: "watchlist-form-title" }, "Crear o reemplazar una lista"), form, rejectedSlot),
    subscribe);
  await Promise.all([reload(), renderSubscribe()]);
}
