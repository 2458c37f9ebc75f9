// Building the page: every piece of data becomes a text node (textContent / append of a string),
// never HTML: no script of the page parses a string as markup (tests/integration/gateway/
// test_whoami_and_ui.py checks every file), and tests/e2e/test_memory_browser.py checks that a
// memory written as an <img onerror> tag shows as text and runs nothing.

const SVG = "http://www.w3.org/2000/svg";

function set(el, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.setAttribute("class", value);
    else if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
}

function add(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// h("button", {type: "button", onclick}, "Forget") — children are nodes or plain text.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  set(el, attrs);
  add(el, children);
  return el;
}

export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  set(el, attrs);
  add(el, children);
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

let ids = 0;
export function uid(prefix) {
  ids += 1;
  return `${prefix}-${ids}`;
}

// A labelled form control: <div class="field"><label for=id>…</label><input id=id …></div>.
export function field(label, control) {
  if (!control.id) control.id = uid("f");
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

export function select(name, options, value) {
  return h(
    "select",
    { name },
    options.map(([optionValue, text]) => {
      const option = h("option", { value: optionValue }, text);
      if (optionValue === value) option.selected = true;
      return option;
    }),
  );
}

// A definition list of name: value pairs, values as text.
export function meta(pairs) {
  return h(
    "dl",
    { class: "meta" },
    pairs
      .filter(([, value]) => value !== undefined && value !== null && value !== "")
      .map(([name, value]) => h("div", null, h("dt", null, name), h("dd", null, value))),
  );
}

// ENUM_PREFIX_SOME_VALUE -> "some value"
export function enumText(value, prefix) {
  if (!value) return "";
  const short = prefix && value.startsWith(prefix) ? value.slice(prefix.length) : value;
  return short.toLowerCase().replaceAll("_", " ");
}

export function num(value, digits = 2) {
  return typeof value === "number" ? value.toFixed(digits) : "0";
}

export function when(text) {
  if (!text) return "";
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? String(text) : date.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

// A labelled bar for a value in [0, max]: <meter> is announced with its value by screen readers.
export function bar(label, value, max = 1) {
  const id = uid("m");
  const shown = Math.max(0, Math.min(Number(value) || 0, max));
  return [
    h("label", { for: id }, label),
    h("meter", { id, min: 0, max, value: shown }),
    h("span", null, num(Number(value) || 0)),
  ];
}
