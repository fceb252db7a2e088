// Where the viewer keeps things. The key: taken from the URL fragment (#key=...), which
// browsers never send to a server, then removed from the address bar and kept in
// sessionStorage (this tab only; never localStorage). The view, pan and zoom included:
// in the query string, so a link reproduces it (docs/viewer.md, "The URL").

const KEY_ITEM = "floorgate-viewer-key";
let memoryKey = null; // when sessionStorage is refused (a framed page, a strict browser)

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function storeKey(key) {
  memoryKey = key;
  try {
    storage()?.setItem(KEY_ITEM, key);
  } catch {
    // kept in memory only
  }
}

export function storedKey() {
  try {
    return storage()?.getItem(KEY_ITEM) || memoryKey;
  } catch {
    return memoryKey;
  }
}

export function forgetKey() {
  memoryKey = null;
  try {
    storage()?.removeItem(KEY_ITEM);
  } catch {
    // nothing kept
  }
}

// Move `#key=...` out of the address bar (and history) into sessionStorage; other
// fragment parameters stay.
export function takeKeyFromFragment() {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  if (!fragment.has("key")) {
    return;
  }
  const key = (fragment.get("key") || "").trim();
  fragment.delete("key");
  const rest = fragment.toString();
  const address = window.location.pathname + window.location.search + (rest ? `#${rest}` : "");
  window.history.replaceState(window.history.state, "", address);
  if (key) {
    storeKey(key);
  }
}

// A waypoint in the URL: `loc:<location id>`, `pt:<x>,<y>,<floor id>`, or (only as
// `to`) `near:<search text>`, the nearest place the text finds (search/nearest.js).
export function parseWaypoint(text) {
  if (!text) {
    return null;
  }
  if (text.startsWith("loc:") && text.length > 4) {
    return { kind: "location", id: text.slice(4) };
  }
  if (text.startsWith("near:") && text.slice(5).trim()) {
    return { kind: "nearest", q: text.slice(5).trim() };
  }
  if (text.startsWith("pt:")) {
    const [x, y, ...floor] = text.slice(3).split(",");
    const point = { kind: "point", x: Number(x), y: Number(y), floorId: floor.join(",") || null };
    if (x !== "" && y !== "" && Number.isFinite(point.x) && Number.isFinite(point.y)) {
      return point;
    }
  }
  return null;
}

// A number as the URL writes it: at most `places` decimals, no trailing zeros.
function rounded(value, places) {
  const scale = 10 ** places;
  return String(Math.round(value * scale) / scale);
}

export function waypointText(waypoint) {
  if (!waypoint) {
    return null;
  }
  if (waypoint.kind === "location") {
    return `loc:${waypoint.id}`;
  }
  if (waypoint.kind === "nearest") {
    return `near:${waypoint.q}`;
  }
  return `pt:${rounded(waypoint.x, 3)},${rounded(waypoint.y, 3)},${waypoint.floorId || ""}`;
}

// The shown area after a pan or zoom: `box=<x>,<y>,<width>,<height>` in canvas units (the
// map's viewBox), or null for anything else (the level is fitted then).
export function parseBox(text) {
  if (!text) {
    return null;
  }
  const numbers = text.split(",").map((part) => (part.trim() === "" ? NaN : Number(part)));
  if (numbers.length !== 4 || !numbers.every(Number.isFinite)) {
    return null;
  }
  const [x, y, w, h] = numbers;
  return w > 0 && h > 0 ? { x, y, w, h } : null;
}

export function boxText(box) {
  if (!box) {
    return null;
  }
  return [box.x, box.y, box.w, box.h].map((value) => rounded(value, 2)).join(",");
}

// A route starts at a place: "the nearest" is a destination only (the API refuses it as
// `from`), so a link with `from=near:...` has no start.
function startOf(waypoint) {
  return waypoint && waypoint.kind === "nearest" ? null : waypoint;
}

// How a route is shaped (docs/viewer.md, "Shaping a route"): the kinds of connector
// never taken (`avoid=stairs,escalator`), the stops between From and To (`via`, repeated,
// in the order listed, at most MAX_STOPS) and whether the API orders them (`optimize=1`).
export const AVOIDABLE = ["stairs", "escalator"];
export const MAX_STOPS = 25; // the API's limit of `via` waypoints (resolvers/wayfinding/via.py)
// ... and of those it orders (`optimize`): MAX_OPTIMIZED_VIA in resolvers/limits.py.
export const MAX_OPTIMIZED_STOPS = 12;

// Whether the API can order the stops: from two, up to MAX_OPTIMIZED_STOPS.
export function orderable(view) {
  return view.via.length > 1 && view.via.length <= MAX_OPTIMIZED_STOPS;
}

function parseAvoid(text) {
  const words = new Set((text || "").split(",").map((word) => word.trim()));
  return AVOIDABLE.filter((word) => words.has(word)); // known words, in one order
}

// Stops are places or points; "the nearest" is a destination only.
function parseStops(texts) {
  return texts.map(parseWaypoint).filter((stop) => stop && stop.kind !== "nearest").slice(0, MAX_STOPS);
}

// The view in the query string, in this order; defaults are left out. `via` may repeat.
// `lang` is the page's language as the link asked for it (i18n.js; absent: the browser's).
const FIELDS = ["lang", "level", "unit", "from", "via", "to", "optimize", "mode", "avoid", "units", "group",
  "tags", "q", "paths", "box"]; // prettier-ignore

export function readView() {
  const query = new URLSearchParams(window.location.search);
  return {
    lang: query.get("lang"),
    level: query.get("level"),
    unit: query.get("unit"),
    from: startOf(parseWaypoint(query.get("from"))),
    to: parseWaypoint(query.get("to")),
    via: parseStops(query.getAll("via")),
    optimize: query.get("optimize") === "1",
    mode: query.get("mode") === "wheelchair" ? "wheelchair" : "foot",
    avoid: parseAvoid(query.get("avoid")),
    units: ["m", "ft"].includes(query.get("units")) ? query.get("units") : null, // null: the locale's
    group: query.get("group"),
    tags: query.get("tags") || "",
    q: query.get("q") || "",
    paths: query.get("paths") === "1",
    box: parseBox(query.get("box")),
  };
}

export function writeView(view) {
  const values = {
    lang: view.lang,
    level: view.level,
    unit: view.unit,
    from: waypointText(view.from),
    to: waypointText(view.to),
    via: view.via.map(waypointText),
    optimize: view.optimize && view.via.length ? "1" : null,
    mode: view.mode === "wheelchair" ? "wheelchair" : null,
    avoid: view.avoid.join(","),
    units: view.units,
    group: view.group,
    tags: view.tags,
    q: view.q,
    paths: view.paths ? "1" : null,
    box: boxText(view.box),
  };
  const query = new URLSearchParams();
  for (const field of FIELDS) {
    for (const value of Array.isArray(values[field]) ? values[field] : [values[field]]) {
      if (value) {
        query.append(field, value);
      }
    }
  }
  const text = query.toString();
  const address = window.location.pathname + (text ? `?${text}` : "") + window.location.hash;
  if (address !== window.location.pathname + window.location.search + window.location.hash) {
    window.history.replaceState(window.history.state, "", address);
  }
}
