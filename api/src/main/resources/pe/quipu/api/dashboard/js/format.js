// Numbers and dates as Peruvians read them; Quipu's months and days are Lima's.
const LIMA = "America/Lima";
const numbers = new Intl.NumberFormat("es-PE");
const dateTimes = new Intl.DateTimeFormat("es-PE", { dateStyle: "medium", timeStyle: "short", timeZone: LIMA });
const dates = new Intl.DateTimeFormat("es-PE", { dateStyle: "medium", timeZone: "UTC" });

export function number(value) {
  return numbers.format(value);
}

/** "1 solicitud", "2 solicitudes". */
export function count(value, one, many) {
  return `${numbers.format(value)} ${value === 1 ? one : many}`;
}

/** An instant (ISO 8601) in Lima's time, or the text for "never". */
export function dateTime(iso, never = "—") {
  return iso ? dateTimes.format(new Date(iso)) : never;
}

const days = new Intl.DateTimeFormat("es-PE", { dateStyle: "medium", timeZone: LIMA });
/** An instant's day in Lima. */
export function day(iso, never = "—") {
  return iso ? days.format(new Date(iso)) : never;
}

/** A calendar date (YYYY-MM-DD), as it is. */
export function date(isoDate, none = "—") {
  return isoDate ? dates.format(new Date(`${isoDate}T00:00:00Z`)) : none;
}

export const SCOPES = [
  { name: "ruc:read", label: "Consultar RUC (ruc:read)" },
  { name: "ubigeos:read", label: "Consultar ubigeos (ubigeos:read)" },
  { name: "tipo-cambio:read", label: "Consultar tipo de cambio (tipo-cambio:read)" },
  { name: "webhooks:manage", label: "Gestionar webhooks (webhooks:manage)" },
  { name: "watchlists:manage", label: "Gestionar listas de vigilancia (watchlists:manage)" },
];

export const EVENTS = [
  { name: "endpoint.test", label: "Prueba enviada desde el panel (endpoint.test)" },
  { name: "key.created", label: "Clave creada (key.created)" },
  { name: "key.rotated", label: "Clave rotada (key.rotated)" },
  { name: "key.revoked", label: "Clave revocada (key.revoked)" },
  { name: "usage.threshold_reached", label: "Umbral de consumo alcanzado (usage.threshold_reached)" },
  { name: "subscription.updated", label: "Plan cambiado (subscription.updated)" },
  { name: "subscription.canceled", label: "Suscripción cancelada (subscription.canceled)" },
  { name: "ruc.changed", label: "Cambió un RUC vigilado (ruc.changed)" },
];

const KEY_STATUS = { active: ["Activa", "ok"], grace: ["En gracia", "warn"], revoked: ["Revocada", "bad"] };
export function keyStatus(status) {
  return KEY_STATUS[status] || [status, "idle"];
}

const DELIVERY_STATUS = {
  pending: ["Pendiente", "idle"],
  retrying: ["Reintentando", "warn"],
  delivered: ["Entregado", "ok"],
  failed_permanent: ["Fallido", "bad"],
};
export function deliveryStatus(status) {
  return DELIVERY_STATUS[status] || [status, "idle"];
}

const ERRORS = {
  timeout: "tiempo de espera agotado",
  redirect: "redirección (no se siguen)",
  body_too_large: "respuesta de más de 1 MB",
  http_status: "código HTTP no 2xx",
  connection_refused: "conexión rechazada",
  dns: "fallo de DNS",
  tls: "fallo de TLS",
  blocked_address: "dirección bloqueada",
  invalid_response: "respuesta no válida (no es HTTP, o cabeceras de más de 8 KB)",
};
export function deliveryError(kind) {
  return kind ? ERRORS[kind] || kind : "—";
}
