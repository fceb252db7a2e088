// Shaping a route (issue 50, docs/viewer.md "Shaping a route"): **Step-free** is the
// route's `mode: wheelchair` (no stairs, no escalators), **Avoid stairs** and **Avoid
// escalators** send `costingOptions: {pedestrian: {exclude: [...]}}`, and the stops
// between From and To send `via` (in the order listed) and, with **Optimise order**,
// `optimize: true`. Each part of the request is added only when used: a plain route asks
// exactly what it asked before, of any server.

import { byId } from "../dom.js";
import { t } from "../i18n.js";
import { AVOIDABLE, orderable } from "../session.js";

// The toggles' ids, by the word of `exclude` each sends.
const AVOID_TOGGLES = { stairs: "avoid-stairs", escalator: "avoid-escalators" };

// Step-free excludes stairs and escalators itself (the API's `wheelchair`): those toggles
// then show ticked and cannot be changed, and what they held comes back when it is off.
const STEP_FREE_EXCLUDES = new Set(["stairs", "escalator"]);

// The kinds of connector this route may not take, as `exclude` sends them.
export function excluded(view) {
  return AVOIDABLE.filter((word) => view.avoid.includes(word));
}

// The request's parts for `view`: GraphQL variables and arguments, the answer's fields,
// the maneuvers' fields, and the variables' values.
export function shapedRequest(view, waypointInput) {
  const shaped = { variables: "", arguments: "", fields: "", maneuverFields: "", values: {} };
  const exclude = excluded(view);
  if (exclude.length) {
    shaped.variables += ", $costing: CostingOptionsInput";
    shaped.arguments += ", costingOptions: $costing";
    shaped.values.costing = { pedestrian: { exclude } };
  }
  if (view.via.length) {
    shaped.variables += ", $via: [WaypointInput!], $optimize: Boolean";
    shaped.arguments += ", via: $via, optimize: $optimize";
    shaped.fields += "\n    via { id name x y floorId }\n    visitOrder optimized";
    shaped.maneuverFields += " viaIndex";
    shaped.values.via = view.via.map(waypointInput);
    shaped.values.optimize = Boolean(view.optimize) && orderable(view);
  }
  return shaped;
}

// The toggles as the view says (on every route asked: a link, Swap, a stop added).
export function showShaping(app) {
  const stepFree = app.view.mode === "wheelchair";
  byId("wheelchair").checked = stepFree;
  for (const [word, id] of Object.entries(AVOID_TOGGLES)) {
    const toggle = byId(id);
    const implied = stepFree && STEP_FREE_EXCLUDES.has(word);
    toggle.checked = implied || app.view.avoid.includes(word);
    toggle.disabled = implied;
    toggle.title = implied ? t("shaping.implied") : "";
  }
  const panel = byId("directions");
  panel.dataset.avoid = excluded(app.view).join(" ");
}

// Wired once (main.js): each toggle keeps its choice in the URL and asks the route again.
export function wireShaping(app, ask) {
  byId("wheelchair").onchange = (event) => {
    app.view.mode = event.target.checked ? "wheelchair" : "foot";
    app.save();
    ask();
  };
  for (const [word, id] of Object.entries(AVOID_TOGGLES)) {
    byId(id).onchange = (event) => {
      const others = app.view.avoid.filter((other) => other !== word);
      app.view.avoid = AVOIDABLE.filter((known) => others.includes(known) || (known === word && event.target.checked));
      app.save();
      ask();
    };
  }
  byId("optimize-stops").onchange = (event) => {
    app.view.optimize = event.target.checked;
    app.save();
    ask();
  };
}
