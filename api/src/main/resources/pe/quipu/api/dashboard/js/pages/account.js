// Account: rectify nombre, email and the alert threshold; download the personal-data export; delete the account.
import { api, forget } from "../api.js";
import { h, field, busy, alertBox } from "../dom.js";
import { day } from "../format.js";

const PHRASE = "BORRAR MI CUENTA";

export async function accountPage(container, { go }) {
  const me = await api("GET", "/v1/me");

  // Rectification (PATCH /v1/me): only what changed is sent.
  const profileAlert = alertBox();
  const nombre = field("Nombre", { type: "text", name: "nombre", id: "me-nombre", required: true, maxlength: 200,
    autocomplete: "name", value: me.nombre });
  const email = field("Correo electrónico", { type: "email", name: "email", id: "me-email", required: true,
    autocomplete: "email", value: me.email });
  const threshold = field("Umbral de alerta de consumo (%)", { type: "number", name: "usageAlertPercent", id: "me-threshold",
    min: 1, max: 100, step: 1, required: true, value: String(me.usageAlertPercent) },
  "Al cruzarlo en el mes, Quipu emite el evento usage.threshold_reached a tus webhooks.");
  const save = h("button", { type: "submit", class: "button", id: "me-save" }, "Guardar cambios");
  const profile = h("form", { novalidate: true, "aria-labelledby": "profile-heading" },
    h("h2", { id: "profile-heading" }, "Tus datos"),
    profileAlert.element, nombre.element, email.element, threshold.element, save);
  let current = me;
  profile.addEventListener("submit", async (event) => {
    event.preventDefault();
    profileAlert.clear();
    const changes = {};
    if (nombre.input.value.trim() !== current.nombre) {
      changes.nombre = nombre.input.value.trim();
    }
    if (email.input.value.trim() !== current.email) {
      changes.email = email.input.value.trim();
    }
    const percent = Number(threshold.input.value);
    if (threshold.input.value.trim() === "" || !Number.isInteger(percent)) {
      profileAlert.error({ problem: { type: "validation_error", detail: "el umbral debe ser un número entero de 1 a 100." } });
      return;
    }
    if (percent !== current.usageAlertPercent) {
      changes.usageAlertPercent = percent;
    }
    if (Object.keys(changes).length === 0) {
      profileAlert.info("No hay cambios que guardar.");
      return;
    }
    try {
      current = await busy(save, "Guardando…", () => api("PATCH", "/v1/me", { body: changes }));
      profileAlert.success("Datos actualizados.");
      document.getElementById("who").textContent = current.email;
    } catch (error) {
      profileAlert.error(error);
    }
  });

  // Export (GET /v1/me/export): downloaded as a file, with the session's token, one per 24 hours.
  const exportAlert = alertBox();
  const download = h("button", { type: "button", class: "button secondary", id: "export-download" }, "Descargar mis datos");
  download.addEventListener("click", async () => {
    exportAlert.clear();
    try {
      await busy(download, "Preparando la descarga…", async () => {
        const response = await api("GET", "/v1/me/export", { raw: true });
        const disposition = response.headers.get("Content-Disposition") || "";
        const match = /filename="([^"]+)"/.exec(disposition);
        const blob = await response.blob();
        const url = URL.createObjectURL(blob);
        const link = h("a", { href: url, download: match ? match[1] : "quipu-export.json", hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60000);
      });
      exportAlert.success("Descarga lista: revisa tu carpeta de descargas.");
    } catch (error) {
      exportAlert.error(error);
    }
  });

  // Deletion (DELETE /v1/me): only once the phrase is typed exactly.
  const deleteAlert = alertBox();
  const phrase = field(`Escribe ${PHRASE} para confirmar`, { type: "text", name: "confirmation", id: "delete-phrase",
    autocomplete: "off", spellcheck: "false" });
  const remove = h("button", { type: "submit", class: "button danger", id: "delete-account", disabled: true }, "Eliminar mi cuenta");
  phrase.input.addEventListener("input", () => {
    remove.disabled = phrase.input.value !== PHRASE;
  });
  const deletion = h("form", { novalidate: true, "aria-labelledby": "delete-heading" },
    h("h2", { id: "delete-heading" }, "Eliminar la cuenta"),
    h("p", {}, "Se revocan todas tus claves, se cierran tus sesiones y dejas de recibir webhooks. Tus datos se borran definitivamente a los 30 días."),
    deleteAlert.element, phrase.element, remove);
  deletion.addEventListener("submit", async (event) => {
    event.preventDefault();
    deleteAlert.clear();
    if (phrase.input.value !== PHRASE) {
      return;
    }
    try {
      await busy(remove, "Eliminando la cuenta…", () => api("DELETE", "/v1/me", { body: { confirmation: phrase.input.value } }));
      forget();
      go("ingresar", "Tu cuenta fue eliminada. Sus datos se borran definitivamente en 30 días.");
    } catch (error) {
      deleteAlert.error(error);
    }
  });

  container.append(
    h("h1", {}, "Cuenta"),
    h("p", { class: "muted" }, `Cuenta creada el ${day(me.createdAt)}.`),
    h("section", { class: "card" }, profile),
    h("section", { class: "card", "aria-labelledby": "export-heading" },
      h("h2", { id: "export-heading" }, "Descargar tus datos"),
      h("p", {}, "Un archivo JSON con tu perfil, claves (sin secretos), plan, webhooks, registro de auditoría y consumo (Ley 29733, derecho de acceso). Una descarga cada 24 horas."),
      exportAlert.element, download),
    h("section", { class: "card" }, deletion));
}
