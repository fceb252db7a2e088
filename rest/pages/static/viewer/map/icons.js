// The map's icons for kinds of place (issue 48, point 3): restrooms, elevators, stairs,
// escalators, entrances, information, parking and the like, drawn as a small disc with a
// white glyph, 22 CSS px across at any zoom (the body is scaled by `--upp`, viewer.css).
// Our own drawings: each glyph is one path on a 24-unit grid, stroked in white.
//
// A place's kind comes from what the data says, first found first: its location's tags
// (`imdf:category` such as `restroom.female`, `svc:category`, OpenStreetMap's `amenity`,
// `highway`, `entrance`...), the unit's IMDF category (its shape's class `imdf-<category>`,
// as docs/geojson.md reads it), a drawn connector's `data-connector`, and last the name
// when the whole name is the kind's word ("WC", "Lift 2", "Stairs B"). `KINDS` is the one
// table from those values to an icon.

import { s } from "../dom.js";
import { TABLES, t } from "../i18n.js";

export const ICON_PX = 22; // an icon's disc across, on screen
export const ICON_RADIUS = ICON_PX / 2;

// kind -> the disc's colour and the glyph. Its name (an unnamed place's accessible name)
// is the message `icon.<kind>` of the page's language (kindName).
export const ICONS = {
  restroom: { colour: "#0e7490", filled: true,
    d: "M7 2.6a1.9 1.9 0 1 0 .01 0zM4.6 8h4.8v6.5H8.4V21H5.6v-6.5h-1zM17 2.6a1.9 1.9 0 1 0 .01 0z" +
      "M17 8l3.4 8.5h-2V21h-2.8v-4.5h-2zM12 3v18" },
  elevator: { colour: "#6d28d9",
    d: "M5 3h14v18H5zM9 10l3-3.5 3 3.5zM9 14l3 3.5 3-3.5z" },
  stairs: { colour: "#6d28d9", d: "M4 20h5v-5h5v-5h5V5h2" },
  escalator: { colour: "#6d28d9",
    d: "M3 19h4l9-10h5M5 15l9-10h4M16.5 3.5a1.3 1.3 0 1 0 .01 0" },
  ramp: { colour: "#6d28d9", d: "M3 19h18V8zM8 19v-2" },
  entrance: { colour: "#1d4ed8",
    d: "M13 4h6v16h-6M3 12h11M10 8l4 4-4 4" },
  exit: { colour: "#15803d", d: "M11 4H5v16h6M10 12h11M17 8l4 4-4 4" },
  information: { colour: "#1d4ed8",
    d: "M12 6.5a.8.8 0 1 0 .01 0M12 10.5V18M10 18h4M10 10.5h2" },
  parking: { colour: "#1d4ed8", d: "M8 20V4h5a4 4 0 0 1 0 8H8" },
  food: { colour: "#c2410c",
    d: "M7 3v18M4.5 3v5a2.5 2.5 0 0 0 5 0V3M17 21V3c-2.5 1.5-3 5-3 9h3" },
  atm: { colour: "#374151",
    d: "M3 7h18v10H3zM12 9.5a2.5 2.5 0 1 0 .01 0M6 10v4M18 10v4" },
  firstAid: { colour: "#b91c1c", d: "M12 5v14M5 12h14" },
  shop: { colour: "#a21caf", d: "M5 8h14l-1 12H6zM9 8V6a3 3 0 0 1 6 0v2" },
  gym: { colour: "#374151", d: "M3 12h18M6 8v8M9 9v6M18 8v8M15 9v6" },
  pool: { colour: "#0369a1",
    d: "M3 16c2-1.5 3-1.5 4.5 0s3 1.5 4.5 0 3-1.5 4.5 0 2.5 1.5 4.5 0M3 11c2-1.5 3-1.5 4.5 0" +
      "s3 1.5 4.5 0 3-1.5 4.5 0 2.5 1.5 4.5 0" },
  mail: { colour: "#374151", d: "M3 6h18v12H3zM3 6l9 7 9-7" },
  waste: { colour: "#374151", d: "M5 7h14M10 7V4h4v3M6.5 7l1 13h9l1-13" },
}; // prettier-ignore

// Category values (the part before the first ".": `restroom.female` is `restroom`) and
// tag values -> kind. IMDF's unit and amenity categories, OpenStreetMap's values, ours.
const KINDS = {
  restroom: "restroom", toilets: "restroom", toilet: "restroom", wc: "restroom",
  washroom: "restroom", bathroom: "restroom", lavatory: "restroom",
  elevator: "elevator", lift: "elevator",
  stairs: "stairs", stair: "stairs", staircase: "stairs", steps: "stairs",
  escalator: "escalator", ramp: "ramp", movingwalkway: "escalator",
  entrance: "entrance", entry: "entrance", main: "entrance", exit: "exit",
  emergency_exit: "exit", information: "information", info: "information",
  reception: "information", concierge: "information", information_desk: "information",
  parking: "parking", parking_entrance: "parking", parking_space: "parking", garage: "parking",
  foodservice: "food", restaurant: "food", cafe: "food", fast_food: "food", food_court: "food",
  food: "food", bar: "food", coffee: "food", atm: "atm", bank: "atm", firstaid: "firstAid",
  first_aid: "firstAid", clinic: "firstAid", retail: "shop", fitness_centre: "gym",
  fitness: "gym", gym: "gym", swimming_pool: "pool", pool: "pool", mailroom: "mail",
  post_office: "mail", waste_disposal: "waste", recycling: "waste",
}; // prettier-ignore

// Tags whose value names a kind, first found first (as resolvers/search/categories.py reads
// them); `shop` and `entrance` name one by their key whatever the value.
const KIND_KEYS = ["imdf:category", "svc:category", "amenity", "highway", "railway", "leisure",
  "shop", "entrance", "door"]; // prettier-ignore
const KEY_KINDS = { shop: "shop", entrance: "entrance" };
const NOT_A_KIND = new Set(["yes", "no", "unspecified", ""]);

// Words a name may consist of to name its kind by itself (with a number or a letter).
const NAME_WORDS = {
  restroom: ["wc", "wcs", "toilet", "toilets", "restroom", "restrooms", "washroom", "washrooms",
    "lavatory", "lavatories", "bathroom"],
  elevator: ["lift", "lifts", "elevator", "elevators"],
  stairs: ["stairs", "stair", "staircase", "stairway", "stairwell"],
  escalator: ["escalator", "escalators"],
  information: ["information", "info", "reception", "help desk"],
  entrance: ["entrance", "main entrance"],
  exit: ["exit", "fire exit", "emergency exit"],
  parking: ["parking", "car park"],
}; // prettier-ignore
// Words that add nothing beside an icon ("Restroom 4", "Lift B", "Information desk").
const FILLER = new Set(["desk", "area", "room", "point", "the", "and", "of", "no"]);

function kindOfValue(value) {
  const head = String(value || "").trim().toLowerCase().split(".")[0];
  return NOT_A_KIND.has(head) ? null : KINDS[head] || null;
}

// The kind a place's tags ([{key, value}] or [[key, value]]) name, else null.
export function kindOfTags(tags) {
  const byKey = new Map();
  for (const tag of tags || []) {
    const [key, value] = Array.isArray(tag) ? tag : [tag.key, tag.value];
    if (!byKey.has(String(key).toLowerCase())) {
      byKey.set(String(key).toLowerCase(), value);
    }
  }
  for (const key of KIND_KEYS) {
    const value = byKey.get(key);
    if (value === undefined || NOT_A_KIND.has(String(value).trim().toLowerCase())) {
      continue;
    }
    const kind = kindOfValue(value) || KEY_KINDS[key];
    if (kind) {
      return kind;
    }
  }
  return null;
}

// The kind of an IMDF category (`restroom.female`, a shape's class `imdf-restroom.female`).
export function kindOfCategory(category) {
  const text = String(category || "").trim().toLowerCase();
  const found = text.split(/\s+/).find((word) => word.startsWith("imdf-"));
  return kindOfValue(found ? found.slice(5) : text.includes(" ") ? "" : text);
}

function words(name) {
  return String(name || "")
    .toLowerCase()
    .replace(/[()'’.,:;/-]+/g, " ")
    .split(/\s+/)
    .filter(Boolean);
}

// A designator: a number, a letter, a number with letters ("2", "B", "3a", "G.04").
const DESIGNATOR = /^([0-9]+[a-z]?|[a-z]|[a-z]?[0-9]+)$/;

// The kind a name names by itself ("WC", "Lift 2", "Stairs B", "Reception"), else null.
export function kindOfName(name) {
  const text = words(name)
    .filter((word) => !DESIGNATOR.test(word))
    .join(" ");
  for (const [kind, names] of Object.entries(NAME_WORDS)) {
    if (names.includes(text)) {
      return kind;
    }
  }
  return null;
}

// What a kind of place is called in the page's language ("Elevator", "Aufzug"); a kind
// the tables do not know, as its word ("Door").
export function kindName(kind) {
  const id = `icon.${kind}`;
  const name = t(id);
  return name === id ? kind[0].toUpperCase() + kind.slice(1) : name;
}

// Whether a name says more than its icon: "Restroom 4", "WC", "Lift B" do not; "Main
// entrance", "Women's restroom", "Concierge" do (nor "Aufzug 2" on a German page).
export function saysMore(name, kind) {
  const known = [TABLES.en[`icon.${kind}`], kindName(kind)];
  const generic = new Set([...(NAME_WORDS[kind] || []), ...known].flatMap(words));
  return words(name).some((word) => !generic.has(word) && !FILLER.has(word) && !DESIGNATOR.test(word));
}

// An icon: its disc and glyph around 0,0 in CSS px, named for screen readers and as a
// tooltip by `name`.
export function iconNode(kind, name) {
  const icon = ICONS[kind];
  const node = s("g", { class: "place-icon", "data-icon": kind, role: "img", "aria-label": name });
  const title = s("title");
  title.textContent = name;
  const glyph = s("path", { d: icon.d, class: icon.filled ? "glyph filled" : "glyph", transform: "translate(-7.5 -7.5) scale(0.625)" });
  node.append(title, s("circle", { r: String(ICON_RADIUS), fill: icon.colour }), glyph);
  return node;
}
