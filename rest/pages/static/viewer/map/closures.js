// Closures (issue 50, point 2) on the map: a closed connector's icon struck through, a
// closed unit greyed with a dashed red edge (no fill pattern: the page's files reference
// nothing by URL), each with its reason and end as a tooltip (`<title>`) and in its
// accessible name; read once when the map opens and again with every route asked
// (route/directions.js), since routes avoid what is closed now. The directions card names
// the closures a route's `reason` mentions. A key that may not read them (no flag, no
// permission), or a server without them, draws none and says nothing.

import { graphql } from "../api.js";
import { byId, clear, h, named, s, show } from "../dom.js";
import { formattingLocale, t, tNodes } from "../i18n.js";
import { kindName } from "./icons.js";

// Those in force (flag `directions`, any key that may see the map; docs/routing.md).
const CLOSURES = `query ViewerClosures($map: ID!) {
  closures(unitMapId: $map) { kind connectorId unitId connectorKind name until reason }
}`;

// The closures the page holds: [{kind: "connector" | "unit", id, connectorKind, name,
// until, reason}].
function closuresOf(data) {
  return (data.closures || [])
    .map((closure) => ({
      kind: closure.kind === "unit" ? "unit" : "connector",
      id: closure.kind === "unit" ? closure.unitId : closure.connectorId,
      connectorKind: closure.connectorKind || null,
      name: closure.name || null,
      until: closure.until || null,
      reason: closure.reason || "",
    }))
    .filter((closure) => closure.id);
}

// "until 14:00" today, "until 3 Dec, 14:00" another day, in the page's language.
export function untilText(until) {
  const at = until ? new Date(until) : null;
  if (!at || Number.isNaN(at.getTime())) {
    return t("closure.reopened");
  }
  const locale = formattingLocale();
  const time = at.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === new Date().toDateString()) {
    return t("closure.until", { time });
  }
  const day = at.toLocaleDateString(locale, { day: "numeric", month: "short" });
  return t("closure.untilDay", { day, time });
}

// The closed thing's name and the words around it: "Unit {name}", "{kind} {name}"; one
// without a name by its kind alone, or as a place without a name (never an id, issue 66).
function closureParts(app, closure) {
  if (closure.kind === "unit") {
    const name = closure.name || unitName(app, closure.id);
    return name ? { id: "closure.unit", params: { name } } : { id: "closure.unnamedUnit", params: { name: "" } };
  }
  const { kind, name } = connectorOf(app, closure);
  const params = { kind: kind ? kindName(kind) : t("closure.anyConnector"), name: name || "" };
  return { id: name ? "closure.connector" : "closure.connectorAlone", params };
}

// "Elevator Lift A closed until 14:00: maintenance".
function closureText(app, closure) {
  const { id, params } = closureParts(app, closure);
  return t("closure.text", { what: t(id, params), closed: closedText(closure) });
}

// The same as nodes, the name in an element of its own direction (the directions card).
function closureNodes(app, closure) {
  const { id, params } = closureParts(app, closure);
  const what = h("span", {}, ...tNodes(id, { ...params, name: named(params.name) }));
  return tNodes("closure.text", { what, closed: closedText(closure) });
}

// "closed until 14:00: maintenance".
function closedText(closure) {
  const until = untilText(closure.until);
  if (!closure.reason) {
    return t("closure.closed", { until });
  }
  return t("closure.closedBecause", { until, reason: closure.reason });
}

function unitName(app, unitId) {
  const unit = app.unitsById.get(unitId);
  return (unit && unit.name && unit.name.trim()) || null;
}

// What a connector is called: its kind and its name (the API's, else its place's on the
// map: labels.js names a drawn connector by its location), else none.
function connectorOf(app, closure) {
  let [kind, name] = [closure.connectorKind, closure.name];
  for (const items of app.labels.allItems()) {
    const item = items.find((candidate) => candidate.connectorId === closure.id);
    if (item) {
      kind = kind || item.kind;
      name = name || (item.generated ? null : item.name); // "Elevator" says only its kind
    }
  }
  return { kind: kind || null, name: name || null };
}

// Read the map's closures and draw them; a failure keeps none drawn.
export async function refreshClosures(app) {
  if (!app.model) {
    return;
  }
  let closures = [];
  try {
    closures = closuresOf(await graphql(app.key, CLOSURES, { map: app.mapId }));
    app.closuresState = "ready";
  } catch {
    app.closuresState = "unavailable";
  }
  app.closures = closures;
  drawClosures(app);
}

// The level's layer of closures: above its drawing, under its labels and the route.
function layerOf(level) {
  if (!level.closuresLayer) {
    level.closuresLayer = s("g", { class: "closures-layer" });
    level.labels.before(level.closuresLayer);
  }
  return level.closuresLayer;
}

function clearDrawn(app) {
  for (const level of app.model.levels) {
    layerOf(level).replaceChildren();
  }
  for (const mark of document.querySelectorAll(".closure-mark")) {
    mark.remove();
  }
  for (const unit of document.querySelectorAll(".unit.closed")) {
    unit.classList.remove("closed");
    unit.querySelector("title.closure-title")?.remove();
    if (unit.dataset.openLabel) {
      unit.setAttribute("aria-label", unit.dataset.openLabel);
      delete unit.dataset.openLabel;
    }
  }
}

function drawUnit(app, closure, text) {
  const unit = app.model.units.get(closure.id);
  if (!unit) {
    return;
  }
  const node = unit.node;
  node.classList.add("closed");
  node.dataset.openLabel = node.getAttribute("aria-label") || "";
  node.setAttribute("aria-label", `${node.dataset.openLabel}${t("closure.join")}${closedText(closure)}`);
  const title = s("title", { class: "closure-title" });
  title.textContent = text;
  node.prepend(title);
  const points = node.getAttribute("points");
  const hatch = points ? s("polygon", { points }) : s("path", { d: node.getAttribute("d") });
  hatch.setAttribute("class", "closure-hatch"); // greyed, a dashed red edge (viewer.css)
  hatch.setAttribute("data-unit-id", closure.id);
  layerOf(unit.level).append(hatch);
}

// A struck-through ring over each drawn icon of the connector (one per level it serves).
function drawConnector(app, closure, text) {
  for (const level of app.model.levels) {
    for (const connector of (level.connectors || []).filter((one) => one.id === closure.id)) {
      const mark = s("g", { class: "closure-mark", transform: `translate(${connector.x} ${connector.y})`,
        "data-connector-id": closure.id, "data-level-uid": level.uid, role: "img", "aria-label": text }); // prettier-ignore
      const title = s("title", {});
      title.textContent = text;
      const body = s("g", { class: "marker-body" });
      body.append(s("circle", { cx: "0", cy: "0", r: "12" }), s("line", { x1: "-9", y1: "-9", x2: "9", y2: "9" }));
      mark.append(title, body);
      level.markers.append(mark);
    }
  }
}

export function drawClosures(app) {
  const svg = byId("map");
  clearDrawn(app);
  for (const closure of app.closures || []) {
    const text = closureText(app, closure);
    if (closure.kind === "unit") {
      drawUnit(app, closure, text);
    } else {
      drawConnector(app, closure, text);
    }
  }
  svg.dataset.closures = String((app.closures || []).length);
  svg.dataset.closuresState = app.closuresState || "loading";
}

// The closures a route answer lists (`closures`: those its `reason` names, and those at
// its ends), as the page holds closures: read as data, never found in the reason's words.
export function namedClosures(listed) {
  return closuresOf({ closures: listed || [] });
}

// The closures named, listed in the directions card above the steps.
export function showNamedClosures(app, closures) {
  const list = clear(byId("route-closures"));
  for (const closure of closures) {
    const item = h("li", { "data-closure-kind": closure.kind, "data-closure-id": closure.id });
    item.append(...closureNodes(app, closure));
    list.append(item);
  }
  show(list, closures.length > 0);
}
