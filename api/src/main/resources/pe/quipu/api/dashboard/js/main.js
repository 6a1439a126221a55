// Quipu's dashboard: a hash router over pages that each render into <main>. Pages are ES modules of this origin.
import * as session from "./api.js";
import { h, replace, describe } from "./dom.js";
import { loginPage, signupPage } from "./pages/auth.js";
import { overviewPage } from "./pages/overview.js";
import { keysPage } from "./pages/keys.js";
import { webhooksPage, webhookPage } from "./pages/webhooks.js";
import { accountPage } from "./pages/account.js";
import { plansPage } from "./pages/plans.js";
import { watchlistsPage } from "./pages/watchlists.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const who = document.getElementById("who");

/** Pages open to anyone; the others need a session and send to the login page without one. */
const PUBLIC = new Set(["ingresar", "registro", "planes"]);
const ROUTES = {
  ingresar: loginPage,
  registro: signupPage,
  resumen: overviewPage,
  claves: keysPage,
  webhooks: webhooksPage,
  listas: watchlistsPage,
  cuenta: accountPage,
  planes: plansPage,
};
const TITLES = {
  ingresar: "Ingresar", registro: "Crear cuenta", resumen: "Resumen", claves: "Claves de API", webhooks: "Webhooks", listas: "Listas de vigilancia",
  cuenta: "Cuenta", planes: "Planes",
};

/** A message for the next page to show (e.g. "your account was deleted"), shown once. */
let flash = null;

export function go(route, message) {
  flash = message || null;
  if (location.hash === `#/${route}`) {
    render();
  } else {
    location.hash = `#/${route}`;
  }
}

function parse() {
  const hash = location.hash.startsWith("#/") ? location.hash.slice(2) : "";
  const [name, ...rest] = hash.split("/");
  return { name: name || (session.signedIn() ? "resumen" : "ingresar"), rest };
}

let rendering = 0;

async function render() {
  const { name, rest } = parse();
  const page = ROUTES[name];
  if (!page) {
    go(session.signedIn() ? "resumen" : "ingresar");
    return;
  }
  if (!PUBLIC.has(name) && !session.signedIn()) {
    go("ingresar");
    return;
  }
  if ((name === "ingresar" || name === "registro") && session.signedIn()) {
    go("resumen");
    return;
  }
  const current = ++rendering;
  document.title = `${name === "webhooks" && rest[0] ? "Entregas" : TITLES[name]} · Quipu`;
  for (const link of nav.querySelectorAll("a")) {
    if (link.dataset.route === name) {
      link.setAttribute("aria-current", "page");
    } else {
      link.removeAttribute("aria-current");
    }
  }
  const message = flash;
  flash = null;
  const container = h("div", {});
  replace(main, h("p", { class: "muted", role: "status" }, "Cargando…"));
  try {
    await (name === "webhooks" && rest[0] ? webhookPage(container, rest[0], { go, message }) : page(container, { go, message }));
  } catch (error) {
    if (error instanceof session.ApiError && error.status === 410) {
      session.forget();
      go("ingresar", "Esta cuenta fue eliminada.");
      return;
    }
    replace(container, h("h1", { tabindex: "-1" }, TITLES[name]), h("div", { class: "alert error", role: "alert" }, ...describe(error)));
  }
  if (current !== rendering) {
    return; // a newer navigation started meanwhile
  }
  replace(main, container);
  const heading = main.querySelector("h1");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
  }
  window.scrollTo(0, 0);
}

function showSession(open) {
  nav.hidden = !open;
  logoutButton.hidden = !open;
  who.textContent = "";
  if (open) {
    session.api("GET", "/v1/me").then((me) => { who.textContent = me.email; }, () => {});
  }
}

logoutButton.addEventListener("click", async () => {
  logoutButton.disabled = true;
  try {
    await session.logout();
  } catch {
    // The token is forgotten whatever the server said.
  } finally {
    logoutButton.disabled = false;
  }
  go("ingresar", "Sesión cerrada.");
});

document.getElementById("skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});

session.onSessionChange((open, reason) => {
  showSession(open);
  if (!open && reason === "expired" && !PUBLIC.has(parse().name)) {
    go("ingresar", "Tu sesión terminó; vuelve a ingresar.");
  }
});

window.addEventListener("hashchange", () => {
  if (location.hash === "" || location.hash.startsWith("#/")) {
    render();
  }
});

(async () => {
  // A session restored from the cookie shows the navigation through onSessionChange.
  await session.restore();
  render();
})();
