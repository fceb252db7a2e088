// The viewer's own words in the visitor's language (issue 51; docs/viewer.md, "Languages").
// One table per language (i18n/<tag>.json), each keyed by a message id; a message is a
// text with `{name}` placeholders, or, where a count decides the words, one text per
// plural category of Intl.PluralRules (`{"one": ..., "other": ...}`). The language is the
// URL's `lang=`, else the browser's first one that has a table, else English; the API is
// asked in the same one (api.js), so names, steps and labels agree with the page.

import de from "./i18n/de.json" with { type: "json" };
import en from "./i18n/en.json" with { type: "json" };
import es from "./i18n/es.json" with { type: "json" };
import fr from "./i18n/fr.json" with { type: "json" };
import zhHans from "./i18n/zh-Hans.json" with { type: "json" };
import zhHant from "./i18n/zh-Hant.json" with { type: "json" };

export const TABLES = { en, "zh-Hant": zhHant, "zh-Hans": zhHans, fr, de, es };
export const FALLBACK = "en"; // every id is in its table; another table may lack one
// Languages written right to left: a page in one of them is laid out from the right.
const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur"]);
// Chinese without a script is written in Traditional characters in these regions.
const TRADITIONAL_REGIONS = new Set(["HK", "TW", "MO"]);
// Letters of the scripts written right to left (what `dir="auto"` looks for).
const RTL_SCRIPTS = ["Arabic", "Hebrew", "Syriac", "Thaana", "Nko", "Samaritan", "Mandaic", "Adlam", "Hanifi_Rohingya"];
const RTL_LETTER = new RegExp(`[${RTL_SCRIPTS.map((script) => `\\p{Script=${script}}`).join("")}]`, "u");
const LETTER = /\p{L}/u;
// The page's attributes a table fills: `data-i18n-<attribute>="<message id>"`.
const ATTRIBUTES = ["aria-label", "aria-roledescription", "placeholder", "title"];

let current = FALLBACK; // the table's tag
let locale = FALLBACK; // the tag numbers, plurals and times are written for
let numbers = new Intl.NumberFormat(FALLBACK);
let plurals = new Intl.PluralRules(FALLBACK);

// The table a BCP 47 tag asks for (`zh-HK` -> `zh-Hant`, `zh` -> `zh-Hans`, `de-CH` ->
// `de`), or null when the viewer has none for it (or the tag is not one).
export function tableFor(tag) {
  let asked;
  try {
    asked = new Intl.Locale(String(tag || "").trim());
  } catch {
    return null;
  }
  if (asked.language === "zh") {
    const script = asked.script || (TRADITIONAL_REGIONS.has(asked.region) ? "Hant" : "Hans");
    return TABLES[`zh-${script}`] ? `zh-${script}` : null;
  }
  return TABLES[asked.language] ? asked.language : null;
}

// The language shown: the first of `asked` (the URL's `lang=`) and the browser's
// languages that has a table, and the tag it came from (its region writes the numbers
// and times: `de-CH` groups digits as the Swiss do); else English.
export function chooseLanguage(asked, browser) {
  for (const tag of [asked, ...(browser || [])]) {
    const table = tag ? tableFor(tag) : null;
    if (table) {
      return { table, locale: String(tag).trim() };
    }
  }
  return { table: FALLBACK, locale: FALLBACK };
}

// "rtl" for a language written right to left, else "ltr".
export function directionOfLanguage(tag) {
  return RTL_LANGUAGES.has(String(tag || "").split("-")[0].toLowerCase()) ? "rtl" : "ltr";
}

// What `dir="auto"` would choose for `text`: its first letter's direction ("rtl" for
// Arabic or Hebrew), null when it has no letter. For SVG text, which has no `dir`.
export function textDirection(text) {
  for (const char of String(text || "")) {
    if (RTL_LETTER.test(char)) {
      return "rtl";
    }
    if (LETTER.test(char)) {
      return "ltr";
    }
  }
  return null;
}

// Show the page in `chosen` (chooseLanguage's): `<html lang dir>`, numbers and plurals.
export function setLanguage(chosen) {
  current = TABLES[chosen.table] ? chosen.table : FALLBACK;
  try {
    locale = Intl.NumberFormat.supportedLocalesOf([chosen.locale]).length ? chosen.locale : current;
  } catch {
    locale = current;
  }
  numbers = new Intl.NumberFormat(locale);
  plurals = new Intl.PluralRules(locale);
  document.documentElement.lang = current;
  document.documentElement.dir = directionOfLanguage(current);
  return current;
}

// The table's tag ("de", "zh-Hant"): what the API is asked in.
export function language() {
  return current;
}

// The tag Intl writes numbers, dates and times for ("de-CH", or the table's).
export function formattingLocale() {
  return locale;
}

export function formatNumber(value) {
  return numbers.format(value);
}

function message(id, count) {
  const entry = TABLES[current][id] ?? TABLES[FALLBACK][id];
  if (entry === undefined) {
    return id; // a missing id shows itself: tests/e2e/viewer/test_viewer_language.py
  }
  if (typeof entry === "string") {
    return entry;
  }
  return entry[plurals.select(Number(count) || 0)] ?? entry.other;
}

function valueText(value) {
  return typeof value === "number" ? formatNumber(value) : String(value ?? "");
}

// Message `id` with its placeholders filled (numbers written in the language; `count`
// chooses the plural form).
export function t(id, params = {}) {
  return message(id, params.count).replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(params, name) ? valueText(params[name]) : whole);
}

// Message `id` as a list of strings and nodes: a parameter that is a DOM node goes in as
// that node (a name in an element of its own direction, the key form's `<code>`).
export function tNodes(id, params = {}) {
  return message(id, params.count)
    .split(/(\{\w+\})/)
    .filter(Boolean)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!name || !Object.hasOwn(params, name)) {
        return part;
      }
      const value = params[name];
      return value instanceof Node ? value : valueText(value);
    });
}

// The page's fixed words in the language: `data-i18n="<id>"` on an element replaces its
// content (its children marked `data-i18n-part="<name>"` fill the `{name}` placeholders),
// `data-i18n-<attribute>="<id>"` sets that attribute; and the document's title.
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    const parts = {};
    for (const part of node.querySelectorAll("[data-i18n-part]")) {
      parts[part.dataset.i18nPart] = part;
    }
    node.replaceChildren(...tNodes(node.dataset.i18n, parts));
  }
  for (const attribute of ATTRIBUTES) {
    for (const node of root.querySelectorAll(`[data-i18n-${attribute}]`)) {
      node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
    }
  }
  document.title = t("page.title", { map: document.body.dataset.mapId });
}
