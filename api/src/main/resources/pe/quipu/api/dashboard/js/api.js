// The dashboard's only way to the API. The access token lives in this module's memory and nowhere else: never in the
// browser's storage, never in a cookie. The refresh token is in the HttpOnly cookie quipu_refresh that
// the server sets (Path=/v1/auth, SameSite=Strict); this page never sees it, and a refresh by cookie needs the header
// X-Quipu-CSRF: 1, which no cross-site form can send (docs/decisions.md, Dashboard).

/**
 * A hint, holding no secret, that this browser has logged in and may have a refresh cookie: without it the page does
 * not ask for a refresh it knows will fail.
 */
const SIGNED_IN_HINT = "quipu.sesionIniciada";

let accessToken = null;
let refreshTimer = null;
const listeners = new Set();

/** The page is in Spanish, so the API's Problems are asked for in Spanish too: one language on screen. */
const LANGUAGE = "es-PE";

/** An error answer: status and its Problem Details (type, title, status, detail, errors). */
export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && problem.detail) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function signedIn() {
  return accessToken !== null;
}

/** Called with (open, reason) whenever the session starts or ends. */
export function onSessionChange(listener) {
  listeners.add(listener);
}

/**
 * reason: "expired" when the session ended on its own (a refresh refused), "ended" when this page ended it (logout,
 * deletion), which then says so itself.
 */
function setToken(token, expiresIn, reason = "expired") {
  const was = accessToken !== null;
  accessToken = token;
  clearTimeout(refreshTimer);
  if (token) {
    localStorage.setItem(SIGNED_IN_HINT, "1");
    // A minute before the access token expires, the next one is fetched with the cookie.
    const delay = Math.max(10, (expiresIn || 900) - 60) * 1000;
    refreshTimer = setTimeout(() => refresh(), delay);
  } else {
    localStorage.removeItem(SIGNED_IN_HINT);
  }
  if (was !== (token !== null)) {
    listeners.forEach((listener) => listener(token !== null, reason));
  }
}

async function problemOf(response) {
  let problem = null;
  try {
    problem = await response.json();
  } catch {
    problem = { type: "internal_error", detail: `El servidor respondió ${response.status} sin detalle.` };
  }
  return new ApiError(response.status, problem);
}

/**
 * Spends the refresh cookie for a new access token. Tabs of this browser share the cookie and each refresh replaces it
 * (a refresh token is single-use), so refreshes are taken one tab at a time (Web Locks) and each one sends the cookie
 * the previous one left. Resolves whether a session is open.
 */
export function refresh() {
  const run = async () => {
    let response;
    try {
      response = await fetch("/v1/auth/refresh", {
        method: "POST",
        headers: { "X-Quipu-CSRF": "1", Accept: "application/json", "Accept-Language": LANGUAGE },
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch {
      return accessToken !== null;
    }
    if (!response.ok) {
      setToken(null);
      return false;
    }
    const pair = await response.json();
    setToken(pair.accessToken, pair.expiresIn);
    return true;
  };
  return navigator.locks ? navigator.locks.request("quipu-refresh", run) : run();
}

/** At start: the session the cookie keeps, if this browser has logged in. */
export async function restore() {
  if (localStorage.getItem(SIGNED_IN_HINT) !== "1") {
    return false;
  }
  return refresh();
}

function send(method, path, body, extraHeaders) {
  const headers = { Accept: "application/json", "Accept-Language": LANGUAGE, ...extraHeaders };
  if (accessToken) {
    headers.Authorization = `Bearer ${accessToken}`;
  }
  const init = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(path, init);
}

/**
 * A request to the API with the session's token. A 401 on an expired token is retried once after a refresh. Resolves
 * the JSON answer (null for 204), or the Response itself with raw; rejects with an ApiError carrying the Problem.
 */
export async function api(method, path, { body, raw = false, headers } = {}) {
  let response = await send(method, path, body, headers);
  if (response.status === 401 && accessToken && path !== "/v1/auth/login") {
    if (await refresh()) {
      response = await send(method, path, body, headers);
    }
  }
  if (!response.ok) {
    throw await problemOf(response);
  }
  if (raw) {
    return response;
  }
  return response.status === 204 ? null : response.json();
}

export async function login(email, password) {
  const pair = await api("POST", "/v1/auth/login", { body: { email, password } });
  // The answer also carries the refresh token, for clients without cookies: this page keeps only the cookie's.
  setToken(pair.accessToken, pair.expiresIn);
}

export function signup(nombre, email, password) {
  return api("POST", "/v1/auth/signup", { body: { nombre, email, password } });
}

/** Ends the session on the server (which also clears the cookie), then here whatever the answer. */
export async function logout() {
  try {
    await api("POST", "/v1/auth/logout");
  } finally {
    setToken(null, 0, "ended");
  }
}

/** The session ended elsewhere (the account was deleted): forget the token. */
export function forget() {
  setToken(null, 0, "ended");
}
