// Building the page through the DOM only: no markup is ever parsed from a string, so no text from the API becomes
// markup; and no inline style (the Content-Security-Policy refuses both inline scripts and style attributes).

const SVG = "http://www.w3.org/2000/svg";

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (name === "value" || name === "disabled") {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) {
      continue;
    }
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h("p", {class: "muted"}, "text", h("a", {href: "#"}, "link")). */
export function h(tag, attributes, ...children) {
  return build(document.createElement(tag), attributes, children);
}

/** An SVG element. */
export function s(tag, attributes, ...children) {
  return build(document.createElementNS(SVG, tag), attributes, children);
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

let ids = 0;
/** A page-unique id, for label/for and aria-describedby pairs. */
export function uid(prefix) {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** A labelled input in a .field wrapper: the label's for names the input. */
export function field(label, attributes, hint) {
  const id = attributes.id || uid("f");
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h("input", { ...attributes, id, "aria-describedby": hintId });
  return {
    input,
    element: h("div", { class: "field" },
      h("label", { for: id }, label, hint ? h("span", { class: "hint", id: hintId }, hint) : null),
      input),
  };
}

/** A checkbox with its label around it. */
export function checkbox(label, attributes) {
  const input = h("input", { type: "checkbox", ...attributes });
  return { input, element: h("label", { class: "check" }, input, h("span", {}, label)) };
}

/** A status badge. tone: ok | bad | warn | idle. */
export function badge(text, tone) {
  return h("span", { class: ["badge", tone] }, text);
}

/**
 * Marks a button busy while an action runs (a spinner and a text saying what is happening), and gives it back after.
 */
export async function busy(button, text, action) {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = text;
  try {
    return await action();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = label;
  }
}

/** An alert region that shows an error's Problem Details (or any message) and clears itself. */
export function alertBox() {
  const box = h("div", { class: "alert", role: "alert" });
  return {
    element: box,
    clear() {
      box.className = "alert";
      box.replaceChildren();
    },
    error(error) {
      box.className = "alert error";
      replace(box, ...describe(error));
    },
    success(text) {
      box.className = "alert success";
      replace(box, text);
    },
    info(...content) {
      box.className = "alert info";
      replace(box, ...content);
    },
  };
}

/**
 * What an error says: the Problem's title, its detail and each field's message, all in Spanish (the API answers in
 * the language the page asks for).
 */
export function describe(error) {
  const problem = error && error.problem;
  if (!problem) {
    return [h("p", {}, "No se pudo completar la acción: ", (error && error.message) || "error de red", ".")];
  }
  const parts = [h("p", {}, h("strong", {}, `${problem.title || "Error"}: `), problem.detail || "")];
  if (Array.isArray(problem.errors) && problem.errors.length > 0) {
    parts.push(h("ul", {}, problem.errors.map((e) => h("li", {}, h("code", {}, e.field), ": ", e.message))));
  }
  return parts;
}

/**
 * A modal confirmation (the native dialog: focus kept inside, Escape cancels). Resolves true when confirmed.
 */
export function confirmDialog({ title, body, confirm, danger = true }) {
  return new Promise((resolve) => {
    const titleId = uid("dialog-title");
    const yes = h("button", { type: "button", class: ["button", danger ? "danger" : ""], "data-confirm": "" }, confirm);
    const no = h("button", { type: "button", class: "button secondary" }, "Cancelar");
    const dialog = h("dialog", { "aria-labelledby": titleId },
      h("h2", { id: titleId }, title),
      ...(Array.isArray(body) ? body : [h("p", {}, body)]),
      h("div", { class: "row" }, no, yes));
    let answer = false;
    yes.addEventListener("click", () => { answer = true; dialog.close(); });
    no.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

/**
 * A secret shown once: read-only, selectable, with a copy button and the warning that it will not be shown again.
 */
export function secretPanel({ title, secret, warning, extra, onDone }) {
  const inputId = uid("secret");
  const input = h("input", { type: "text", id: inputId, readonly: true, value: secret, class: "mono", spellcheck: "false",
    autocomplete: "off", "data-secret": "" });
  const copied = h("span", { role: "status", class: "hint" });
  const copy = h("button", { type: "button", class: "button secondary" }, "Copiar");
  copy.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(secret);
      copied.textContent = "Copiado al portapapeles.";
    } catch {
      copied.textContent = "Selecciónalo y cópialo con Ctrl+C.";
    }
  });
  const done = h("button", { type: "button", class: "button" }, "Ya la guardé");
  const panel = h("section", { class: "secret", "aria-labelledby": `${inputId}-title` },
    h("h2", { id: `${inputId}-title` }, title),
    h("p", {}, h("strong", {}, "Importante: "), warning),
    extra || null,
    h("label", { for: inputId }, "Secreto"),
    h("div", { class: "row" }, input, copy),
    copied,
    h("div", { class: "row" }, done));
  done.addEventListener("click", () => {
    panel.remove();
    if (onDone) {
      onDone();
    }
  });
  return { element: panel, focus: () => input.focus() };
}
