// Small DOM helpers. Everything the viewer shows is built with these: text goes in as
// textContent and attributes through setAttribute, never as HTML, because map
// documents, names and tags are data someone else wrote.

import { t } from "./i18n.js";

const SVG_NS = document.getElementById("map").namespaceURI;

function withAttributes(node, attributes) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  return node;
}

// An HTML element with attributes and children (strings become text nodes).
export function h(tag, attributes, ...children) {
  const node = withAttributes(document.createElement(tag), attributes);
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// An SVG element with attributes.
export function s(tag, attributes) {
  return withAttributes(document.createElementNS(SVG_NS, tag), attributes);
}

// A name from the data in an element of its own direction (`dir="auto"`): an Arabic or
// Hebrew name reads right to left inside a page laid out left to right, and the reverse.
export function named(text, tag = "span", attributes = {}) {
  return h(tag, { ...attributes, dir: "auto" }, text);
}

export function byId(id) {
  return document.getElementById(id);
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

export function show(node, visible) {
  node.hidden = !visible;
}

// "4 min 5 s" in the page's language.
export function formatSeconds(seconds) {
  const total = Math.round(seconds);
  if (total < 60) {
    return t("time.seconds", { seconds: total });
  }
  const minutes = Math.floor(total / 60);
  const rest = total % 60;
  return rest ? t("time.minutesSeconds", { minutes, seconds: rest }) : t("time.minutes", { minutes });
}
