// API keys: the list with last use; create with scopes (the secret shown once); rotate (with the grace's end);
// revoke after a confirmation.
import { api } from "../api.js";
import { h, replace, field, checkbox, badge, busy, alertBox, confirmDialog, secretPanel } from "../dom.js";
import { dateTime, SCOPES, keyStatus } from "../format.js";

export async function keysPage(container) {
  const alert = alertBox();
  const secretSlot = h("div", {});
  const list = h("div", { id: "keys-list" });

  async function reload() {
    const keys = (await api("GET", "/v1/keys")).items;
    if (keys.length === 0) {
      replace(list, h("p", { class: "empty" }, "Aún no tienes claves. Crea la primera con el formulario de abajo y úsala como ",
        h("code", {}, "Authorization: Bearer <clave>"), "."));
      return keys;
    }
    replace(list, h("ul", { class: "list" }, keys.map((key) => keyItem(key))));
    return keys;
  }

  function showSecret(created, title, extra) {
    const panel = secretPanel({
      title,
      secret: created.key,
      warning: "copia la clave ahora y guárdala en un lugar seguro. Quipu solo guarda un hash: no se volverá a mostrar.",
      extra,
      onDone: () => document.getElementById("keys-heading").focus(),
    });
    replace(secretSlot, panel.element);
    panel.focus();
  }

  function keyItem(key) {
    const [statusText, tone] = keyStatus(key.status);
    const actions = h("div", { class: "row" });
    if (key.status === "active") {
      const rotate = h("button", { type: "button", class: "button secondary small", "data-action": "rotate",
        "aria-label": `Rotar la clave ${key.name}` }, "Rotar");
      const revoke = h("button", { type: "button", class: "button danger small", "data-action": "revoke",
        "aria-label": `Revocar la clave ${key.name}` }, "Revocar");
      rotate.addEventListener("click", async () => {
        const ok = await confirmDialog({
          title: `¿Rotar la clave ${key.name}?`,
          body: "Se crea una clave nueva con los mismos permisos. La actual seguirá funcionando 24 horas, para que cambies tu sistema sin cortes.",
          confirm: "Rotar",
          danger: false,
        });
        if (!ok) {
          return;
        }
        alert.clear();
        try {
          const created = await busy(rotate, "Rotando…", () => api("POST", `/v1/keys/${key.id}/rotate`));
          const keys = await reload();
          const old = keys.find((k) => k.id === key.id);
          const graceEnd = old && old.expiresAt;
          showSecret(created, "Clave rotada", h("p", { id: "grace-end" },
            `La clave anterior (${key.prefix}…) sigue funcionando hasta el ${dateTime(graceEnd)}; después responde 401.`));
        } catch (error) {
          alert.error(error);
        }
      });
      revoke.addEventListener("click", async () => {
        const ok = await confirmDialog({
          title: `¿Revocar la clave ${key.name}?`,
          body: "Dejará de funcionar de inmediato: cada solicitud con ella recibirá 401. No se puede deshacer.",
          confirm: "Revocar",
        });
        if (!ok) {
          return;
        }
        alert.clear();
        try {
          await busy(revoke, "Revocando…", () => api("DELETE", `/v1/keys/${key.id}`));
          await reload();
          alert.success(`La clave ${key.name} fue revocada.`);
        } catch (error) {
          alert.error(error);
        }
      });
      actions.append(rotate, revoke);
    }
    return h("li", { class: "item", "data-key": key.prefix },
      h("h3", {}, key.name, badge(statusText, tone)),
      h("dl", {},
        h("dt", {}, "Prefijo"), h("dd", {}, h("code", {}, `${key.prefix}…`)),
        h("dt", {}, "Permisos"), h("dd", {}, key.scopes.join(", ")),
        h("dt", {}, "Creada"), h("dd", {}, dateTime(key.createdAt)),
        h("dt", {}, "Último uso"), h("dd", { "data-last-used": "" }, dateTime(key.lastUsedAt, "Nunca")),
        key.expiresAt ? [h("dt", {}, key.status === "grace" ? "Funciona hasta" : "Vence"), h("dd", {}, dateTime(key.expiresAt))] : null),
      actions);
  }

  const name = field("Nombre de la clave", { type: "text", name: "name", id: "key-name", required: true, maxlength: 100,
    autocomplete: "off" }, "Para reconocerla, p. ej. «ERP producción».");
  const scopes = SCOPES.map((scope) => checkbox(scope.label, { name: "scopes", value: scope.name, id: `scope-${scope.name.replace(/[^a-z]/g, "-")}` }));
  const createAlert = alertBox();
  const submit = h("button", { type: "submit", class: "button", id: "key-create" }, "Crear clave");
  const form = h("form", { novalidate: true, "aria-labelledby": "create-key-heading" },
    h("h2", { id: "create-key-heading" }, "Crear una clave"),
    createAlert.element,
    name.element,
    h("fieldset", {}, h("legend", {}, "Permisos"), h("div", { class: "checks" }, scopes.map((s) => s.element))),
    submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    createAlert.clear();
    const chosen = scopes.filter((s) => s.input.checked).map((s) => s.input.value);
    try {
      const created = await busy(submit, "Creando…", () => api("POST", "/v1/keys", { body: { name: name.input.value, scopes: chosen } }));
      form.reset();
      await reload();
      showSecret(created, "Clave creada");
    } catch (error) {
      createAlert.error(error);
    }
  });

  container.append(
    h("h1", {}, "Claves de API"),
    h("p", { class: "muted" }, "Cada clave abre las operaciones de sus permisos. Envíala como ",
      h("code", {}, "Authorization: Bearer qk_live_…"), "."),
    alert.element,
    secretSlot,
    h("section", { "aria-labelledby": "keys-heading", class: "card" }, h("h2", { id: "keys-heading", tabindex: "-1" }, "Tus claves"), list),
    h("section", { class: "card" }, form));
  await reload();
}
