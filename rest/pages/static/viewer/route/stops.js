// Stops between From and To (issue 50, point 3): **Add stop** on a location's row, a
// search result and a unit's panel (**Add as stop**) appends a `via` waypoint, at most
// MAX_STOPS (the buttons are disabled after). The directions card lists them, numbered as
// listed, each removable; **Optimise order** lets the API choose the order (the answer's
// `visitOrder`, said under the list). On the map each stop has a marker with its number;
// in the steps, the arrival at a stop says which ("... arrive at 205 (stop 2)").

import { byId, clear, h, show } from "../dom.js";
import { formatNumber, t } from "../i18n.js";
import { restop, rove } from "../roving.js";
import { MAX_STOPS, orderable, waypointText } from "../session.js";
import { routeMarker } from "./steps.js";

const REMOVE = "button[data-remove-stop]";
// Every "add as a stop" button of the page: the unit panel's, the rows'.
const ADDERS = '#unit-stop, #location-list [data-role="stop"]';

// The number a stop goes by (in the list, on its marker, in the steps): its place in `via`.
export function stopNumber(viaIndex) {
  return viaIndex + 1;
}

// A step's sentence with the stop it arrives at: "Walk 15 ft, then arrive at 205 (stop 2)"
// (before a full stop, if the sentence has one: "." or the Chinese "。", which takes the
// note without a space, as its own brackets are full width).
export function withStop(instruction, viaIndex) {
  const note = t("stop.note", { number: stopNumber(viaIndex) });
  const end = /[.。]$/.exec(instruction)?.[0];
  if (!end) {
    return `${instruction} ${note}`;
  }
  return end === "。" ? `${instruction.slice(0, -1)}${note}${end}` : `${instruction.slice(0, -1)} ${note}${end}`;
}

function full(app) {
  return app.view.via.length >= MAX_STOPS;
}

// The add buttons enabled while a stop may be added. In the lists (one tab stop each,
// roving.js) they stay focusable, `aria-disabled`; the panel's is `disabled`.
export function markAdders(app) {
  const isFull = full(app);
  for (const button of document.querySelectorAll(ADDERS)) {
    if (button.id === "unit-stop") {
      button.disabled = isFull;
    } else {
      button.setAttribute("aria-disabled", String(isFull));
    }
    button.title = isFull ? t("stop.most", { count: MAX_STOPS }) : "";
  }
}

// An "add as a stop" button for a list's row (locations, search results).
export function stopButton(app, name, waypoint, remember = () => {}) {
  const button = h("button", { type: "button", class: "small", "data-role": "stop",
    "aria-label": t("stop.addLabel", { name }), "aria-disabled": String(full(app)) }, t("stop.add")); // prettier-ignore
  button.addEventListener("click", () => {
    if (button.getAttribute("aria-disabled") !== "true") {
      remember();
      app.addStop(waypoint);
    }
  });
  return button;
}

// The order the API visited the stops in, when it chose it.
function orderText(answer) {
  if (!answer || !answer.optimized || !Array.isArray(answer.visitOrder)) {
    return "";
  }
  const order = answer.visitOrder.map((index) => formatNumber(stopNumber(index))).join(t("stop.orderJoin"));
  const id = `optimized.${answer.optimized}`;
  const how = t(id) === id ? answer.optimized : t(id); // a word the tables do not know, as sent
  return t("stop.order", { how, order });
}

// The list of stops in the directions card, the optimise toggle and the add buttons.
// `nameOf(waypoint)` names a stop as From and To are named. The same stops again (an
// answer came) are renamed in place: a focused remove button keeps the focus.
export function showStops(app, nameOf, answer = null) {
  const list = byId("route-stops");
  wire(app, list);
  const texts = app.view.via.map(waypointText);
  const rows = [...list.querySelectorAll("li.stop")];
  const same = rows.length === texts.length && rows.every((row, index) => row.dataset.waypoint === texts[index]);
  if (!same) {
    clear(list);
  }
  app.view.via.forEach((stop, index) => {
    const name = nameOf(stop);
    const label = t("stop.remove", { number: stopNumber(index), name });
    if (same) {
      rows[index].querySelector("output").textContent = name;
      rows[index].querySelector(REMOVE).setAttribute("aria-label", label);
      return;
    }
    const remove = h("button", { type: "button", class: "small", "data-remove-stop": index, "aria-label": label },
      "\u00d7"); // prettier-ignore
    list.append(
      h("li", { class: "stop", "data-via-index": index, "data-waypoint": texts[index] },
        h("span", { class: "stop-number", "aria-hidden": "true" }, String(stopNumber(index))),
        h("output", { dir: "auto" }, name), remove), // prettier-ignore
    );
  });
  restop(list, REMOVE);
  show(list, app.view.via.length > 0);
  const optimise = byId("optimize-stops");
  optimise.checked = Boolean(app.view.optimize);
  show(optimise.closest("label"), orderable(app.view));
  const order = byId("stops-order");
  order.textContent = orderText(answer);
  show(order, Boolean(order.textContent));
  const note = byId("stops-full");
  note.textContent = t("stop.full", { count: MAX_STOPS });
  show(note, full(app));
  byId("directions").dataset.stops = String(app.view.via.length);
  markAdders(app);
}

function wire(app, list) {
  if (list.dataset.wired) {
    return;
  }
  list.dataset.wired = "true";
  rove(list, REMOVE);
  list.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(REMOVE);
    if (button && list.contains(button)) {
      const index = Number(button.dataset.removeStop);
      app.removeStop(index);
      // Focus stays in the card, not lost with the removed button: the stop now in its
      // place, else the one before, else Clear.
      const left = [...list.querySelectorAll(REMOVE)];
      const next = left[Math.min(index, left.length - 1)] || byId("clear-route");
      restop(list, REMOVE, next);
      next.focus();
    }
  });
}

// A numbered marker at each stop the route reaches: at the stop as the answer echoes it,
// on the level of the leg that arrives there.
export function drawStops(app, answer) {
  const route = answer.route;
  const via = answer.via || [];
  for (const maneuver of route.maneuvers) {
    const index = maneuver.viaIndex;
    if (index === null || index === undefined || !via[index]) {
      continue;
    }
    const leg = route.legs[maneuver.legIndex];
    const level = (leg && app.levelByUid(leg.levelUid)) || app.levelOfFloor(via[index].floorId);
    if (level) {
      routeMarker(level, via[index].x, via[index].y, String(stopNumber(index)), {
        class: "route-marker stop-marker",
        "data-via-index": index,
        "data-level-uid": level.uid,
      });
    }
  }
}
