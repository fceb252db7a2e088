// A route's steps: its maneuvers (issue 33) as a list, an icon and a sentence each and the
// distance to the next. A step is a button: it shows the maneuver's level, centres the
// view on it and marks it on the map. The list is one tab stop (roving tabindex: arrow
// keys, Home and End move between steps). Route markers (A, B, connectors, the step's)
// are drawn in screen pixels: viewer.css scales `.marker-body` by `--upp`.

import { byId, clear, h, s } from "../dom.js";
import { maneuverIcon } from "./icons.js";
import { distanceNumber, formatDistance } from "./measure.js";
import { restop, rove } from "../roving.js";

const STEP = "button.step";

// A marker at canvas point (x, y) on `level`: a circle and its text, 22 CSS px across
// at any zoom (the body is drawn in pixels around 0,0 and scaled by the stylesheet).
export function routeMarker(level, x, y, text, attributes) {
  const group = s("g", { class: "route-marker", transform: `translate(${x} ${y})`,
    "data-x": x, "data-y": y, ...attributes }); // prettier-ignore
  const body = s("g", { class: "marker-body" });
  const label = s("text", { x: "0", y: "0", "text-anchor": "middle", "dominant-baseline": "central" });
  label.textContent = text;
  body.append(s("circle", { cx: "0", cy: "0", r: "11" }), label);
  group.append(body);
  level.markers.append(group);
  return group;
}

function removeStepMarker() {
  for (const old of document.querySelectorAll(".route-marker.step-marker")) {
    old.remove();
  }
}

// The level a maneuver stands on: its leg's.
function levelUidOf(route, maneuver) {
  const leg = route.legs[maneuver.legIndex];
  return leg ? leg.levelUid : null;
}

// Show step `index`: its level, the view centred on it (the zoom kept), its marker.
export function showStep(app, index) {
  const list = byId("route-steps");
  const button = list.querySelector(`${STEP}[data-maneuver="${index}"]`);
  const route = app.shownRoute;
  if (!button || !route) {
    return;
  }
  const maneuver = route.maneuvers[index];
  const levelUid = levelUidOf(route, maneuver);
  for (const other of list.querySelectorAll(STEP)) {
    other.removeAttribute("aria-current");
  }
  button.setAttribute("aria-current", "step");
  restop(list, STEP, button);
  removeStepMarker();
  const level = app.levelByUid(levelUid);
  if (!level) {
    return;
  }
  app.showLevel(level.uid);
  const { x, y } = maneuver.location;
  routeMarker(level, x, y, String(index + 1), {
    class: "route-marker step-marker",
    "data-maneuver": index,
    "data-level-uid": level.uid,
  });
  app.panzoom.centreOn(x, y);
}

// The list wired once: one tab stop, a click or Enter on a step shows it.
function wire(app, list) {
  if (list.dataset.wired) {
    return;
  }
  list.dataset.wired = "true";
  rove(list, STEP);
  list.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(STEP);
    if (button && list.contains(button)) {
      showStep(app, Number(button.dataset.maneuver));
    }
  });
}

export function clearSteps() {
  clear(byId("route-steps"));
  removeStepMarker();
}

// The route's maneuvers as the steps list, distances in `units` ("ft" or "m"); `textOf`
// gives a step's sentence (the arrival at a stop names it: route/stops.js).
export function showSteps(app, route, units, textOf = (maneuver) => maneuver.instruction) {
  const list = byId("route-steps");
  wire(app, list);
  clearSteps();
  route.maneuvers.forEach((maneuver, index) => {
    const distance = formatDistance(maneuver.distance, units);
    const button = h(
      "button",
      {
        type: "button",
        class: "step",
        tabindex: "-1",
        "data-maneuver": index,
        "data-type": maneuver.type,
        "data-modifier": maneuver.modifier,
        "data-level-uid": levelUidOf(route, maneuver),
        "data-distance": maneuver.distance,
        "data-via-index": maneuver.viaIndex ?? null,
      },
      maneuverIcon(maneuver),
      h("span", { class: "step-text" }, textOf(maneuver)),
      distanceNumber(maneuver.distance, units) === 0 ? null : h("span", { class: "step-distance" }, distance),
    );
    list.append(h("li", { "data-maneuver": index }, button));
  });
  restop(list, STEP);
}
