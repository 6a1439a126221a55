// Login and signup.
import { login, signup } from "../api.js";
import { h, field, alertBox, busy } from "../dom.js";

export async function loginPage(container, { go, message }) {
  const alert = alertBox();
  if (message) {
    alert.info(message);
  }
  const email = field("Correo electrónico", { type: "email", name: "email", id: "login-email", required: true,
    autocomplete: "username", value: sessionEmail || "" });
  const password = field("Contraseña", { type: "password", name: "password", id: "login-password", required: true,
    autocomplete: "current-password" });
  const submit = h("button", { type: "submit", class: "button", id: "login-submit" }, "Ingresar");
  const form = h("form", { novalidate: true }, email.element, password.element, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    alert.clear();
    try {
      await busy(submit, "Ingresando…", () => login(email.input.value.trim(), password.input.value));
      sessionEmail = null;
      go("resumen");
    } catch (error) {
      alert.error(error);
      password.input.focus();
    }
  });
  container.append(h("div", { class: "auth" },
    h("div", { class: "card" },
      h("h1", {}, "Ingresar al panel"),
      alert.element,
      form,
      h("p", { class: "muted" }, "¿Aún no tienes cuenta? ", h("a", { href: "#/registro", id: "to-signup" }, "Crear una cuenta")),
      h("p", { class: "muted" }, h("a", { href: "#/planes" }, "Ver los planes"), " · ", h("a", { href: "/docs" }, "Documentación de la API")))));
}

/** The email just signed up with, prefilled on the login page that follows. */
let sessionEmail = null;

export async function signupPage(container, { go }) {
  const alert = alertBox();
  const nombre = field("Nombre", { type: "text", name: "nombre", id: "signup-nombre", required: true, autocomplete: "name",
    maxlength: 200 });
  const email = field("Correo electrónico", { type: "email", name: "email", id: "signup-email", required: true,
    autocomplete: "email" });
  const password = field("Contraseña", { type: "password", name: "password", id: "signup-password", required: true,
    autocomplete: "new-password", minlength: 10 }, "Al menos 10 caracteres.");
  const submit = h("button", { type: "submit", class: "button", id: "signup-submit" }, "Crear cuenta");
  const form = h("form", { novalidate: true }, nombre.element, email.element, password.element, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    alert.clear();
    try {
      await busy(submit, "Creando la cuenta…", () =>
        signup(nombre.input.value.trim(), email.input.value.trim(), password.input.value));
      sessionEmail = email.input.value.trim();
      go("ingresar", "Cuenta creada en el plan free. Ingresa con tu correo y contraseña.");
    } catch (error) {
      alert.error(error);
    }
  });
  container.append(h("div", { class: "auth" },
    h("div", { class: "card" },
      h("h1", {}, "Crear una cuenta"),
      h("p", { class: "muted" }, "Con la cuenta creas claves de API, ves tu consumo y recibes webhooks."),
      alert.element,
      form,
      h("p", { class: "muted" }, "¿Ya tienes cuenta? ", h("a", { href: "#/ingresar" }, "Ingresar")))));
}
