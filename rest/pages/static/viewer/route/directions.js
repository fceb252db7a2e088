// Directions: the `route` query (flag directions, permission
// service.distances.calculate) between two waypoints, drawn leg by leg on the levels,
// with its maneuvers as steps (steps.js). A new trip opens on the origin's level with
// the first leg fitted into view (docs/viewer.md, "Directions"). To may be "the nearest"
// of a kind of place (search/nearest.js): the API chooses it, and its answer names it.
// Step-free, the avoid toggles and the stops shape the request (shaping.js, stops.js).

import { graphql } from "../api.js";
import { byId, clear, formatSeconds, h, s, show } from "../dom.js";
import { t } from "../i18n.js";
import { formatDistance, shownUnits } from "./measure.js";
import { waypointText } from "../session.js";
import { keepChosen, markNearest, nearestName } from "../search/nearest.js";
import { clearSteps, routeMarker, showSteps } from "./steps.js";
import { shapedRequest, showShaping } from "./shaping.js";
import { drawStops, showStops, withStop } from "./stops.js";
import { namedClosures, refreshClosures, showNamedClosures } from "../map/closures.js";

// The route query. What shapes a route (route/shaping.js) adds its variables and
// fields only when used, so a plain route asks exactly what it always asked.
function routeQuery(shaped) {
  return `query ViewerRoute($map: ID!, $from: WaypointInput!, $to: WaypointInput!,
    $mode: String, $units: String${shaped.variables}) {
  route(unitMapId: $map, from: $from, to: $to, mode: $mode, units: $units${shaped.arguments}) {
    mode reason
    closures { kind connectorId unitId connectorKind name until reason }
    from { id name x y floorId }
    to { id name x y floorId }${shaped.fields}
    route {
      distance time steps
      legs {
        levelUid floorId distance time
        points { x y }
        connector { id kind x y fromLevelUid toLevelUid fromFloorId toFloorId distance time }
      }
      maneuvers {
        type modifier bearingBefore bearingAfter location { x y } legIndex pointIndex
        distance time instruction side${shaped.maneuverFields}
        landmark { unitId locationId name }
        connector { id kind fromLevelUid toLevelUid }
      }
    }
  }
}`;
}

const CONNECTOR_LETTERS = { elevator: "E", stairs: "S", ramp: "R", escalator: "X", door: "D" };
const MIN_FIT_FEET = 30; // the smallest area a first leg is fitted into, each way
const FIT_MARGIN = 0.15; // around the first leg, as a share of its larger side

export function waypointInput(waypoint) {
  if (waypoint.kind === "nearest") {
    return { nearest: { q: waypoint.q } };
  }
  return waypoint.kind === "location"
    ? { id: waypoint.id }
    : { x: waypoint.x, y: waypoint.y, floorId: waypoint.floorId || null };
}

export function waypointName(app, waypoint) {
  if (!waypoint) {
    return t("directions.notSet");
  }
  if (waypoint.kind === "location") {
    const known = app.knownLocations.get(waypoint.id);
    return known ? known.name : waypoint.id;
  }
  if (waypoint.kind === "nearest") {
    return nearestName(app, waypoint);
  }
  const [x, y] = [Math.round(waypoint.x), Math.round(waypoint.y)];
  return waypoint.floorId
    ? t("waypoint.pointOn", { x, y, floor: app.floorName(waypoint.floorId) })
    : t("waypoint.point", { x, y });
}

export function clearRouteDrawing(app) {
  for (const level of app.model.levels) {
    level.routeLayer.replaceChildren();
  }
  for (const marker of document.querySelectorAll(".route-marker")) {
    marker.remove();
  }
  app.labels.place(); // labels that made way for the markers come back
}

function drawRoute(app, answer) {
  const route = answer.route;
  clearRouteDrawing(app);
  route.legs.forEach((leg, index) => {
    const level = app.levelByUid(leg.levelUid);
    if (!level) {
      return;
    }
    const points = leg.points.map((point) => `${point.x},${point.y}`).join(" ");
    level.routeLayer.append(
      s("polyline", {
        class: "route-leg",
        points,
        "data-leg": index,
        "data-level-uid": leg.levelUid,
        "data-floor-id": leg.floorId,
        "data-distance": leg.distance,
        "data-time": leg.time,
      }),
    );
    const connector = leg.connector;
    if (connector) {
      const letter = CONNECTOR_LETTERS[connector.kind] || "C";
      const attributes = {
        "data-leg": index,
        "data-connector-id": connector.id,
        "data-connector-kind": connector.kind,
      };
      for (const uid of [connector.fromLevelUid, connector.toLevelUid]) {
        const at = app.levelByUid(uid);
        if (at) {
          routeMarker(at, connector.x, connector.y, letter, { ...attributes, "data-level-uid": uid });
        }
      }
    }
  });
  const first = route.legs[0];
  const last = route.legs[route.legs.length - 1];
  if (first && first.points.length && app.levelByUid(first.levelUid)) {
    const p = first.points[0];
    routeMarker(app.levelByUid(first.levelUid), p.x, p.y, "A", { "data-end": "from" });
  }
  if (last && last.points.length && app.levelByUid(last.levelUid)) {
    const p = last.points[last.points.length - 1];
    routeMarker(app.levelByUid(last.levelUid), p.x, p.y, "B", { "data-end": "to" });
  }
  drawStops(app, answer);
  app.labels.place(); // no label under a marker; the ends' names beside their A and B
}

function polylineLength(points) {
  let length = 0;
  for (let i = 1; i < points.length; i += 1) {
    length += Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
  }
  return length;
}

// Feet per canvas unit, from the route itself: a leg's distance is the walk along its
// points (the ride of its connector apart), and the parsed document carries no scale.
function feetPerUnit(route) {
  const units = route.legs.reduce((sum, leg) => sum + polylineLength(leg.points), 0);
  const feet = route.legs.reduce((sum, leg) => sum + leg.distance, 0);
  return units > 0 && feet > 0 ? feet / units : 1;
}

// The first leg's points with a margin, at least MIN_FIT_FEET each way (a leg of a few
// feet, or of one point, is shown with what is around it).
export function firstLegBox(route) {
  const points = route.legs[0].points;
  const xs = points.map((point) => point.x);
  const ys = points.map((point) => point.y);
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const margin = Math.max(right - left, bottom - top) * FIT_MARGIN;
  const least = MIN_FIT_FEET / feetPerUnit(route);
  const width = Math.max(right - left + 2 * margin, least);
  const height = Math.max(bottom - top + 2 * margin, least);
  const [cx, cy] = [(left + right) / 2, (top + bottom) / 2];
  return { x: cx - width / 2, y: cy - height / 2, width, height };
}

function tripOf(view) {
  return `${waypointText(view.from)} ${waypointText(view.to)}`;
}

// Where a route opens. A new trip (other ends than the route shown before) opens on its
// origin's level with the first leg fitted, but for the page's first one when the link
// named the level or the area (app.linkedPlace): the link is kept then. The same trip
// again (another mode, other units) keeps the view, unless the shown level is off it.
function placeRoute(app, route) {
  const trip = tripOf(app.view);
  const fresh = trip !== app.placedTrip;
  app.placedTrip = trip;
  const first = route.legs[0];
  if (fresh && first && first.points.length && app.levelByUid(first.levelUid)) {
    app.showLevel(first.levelUid);
    app.fitBox(firstLegBox(route));
  } else if (first && !route.legs.some((leg) => leg.levelUid === app.view.level)) {
    app.showLevel(first.levelUid);
  }
}

// A connector's kind as a leg's text says it ("then stairs to Floor 3"); a kind the
// tables do not know, as the API gives it.
function connectorWord(kind) {
  const id = `connector.${kind}`;
  const word = t(id);
  return word === id ? kind : word;
}

function legText(app, leg, units) {
  const level = app.levelByUid(leg.levelUid);
  const where = level ? app.levelName(level) : leg.floorId || leg.levelUid;
  const distance = formatDistance(leg.distance, units);
  if (!leg.connector) {
    return t("leg.text", { level: where, distance });
  }
  const floor = app.floorName(leg.connector.toFloorId) || leg.connector.toLevelUid;
  return t("leg.then", { level: where, distance, connector: connectorWord(leg.connector.kind), floor });
}

function showUnitsButton(units) {
  const button = byId("route-units");
  button.textContent = t(units === "m" ? "units.m" : "units.ft");
  button.dataset.units = units;
  const label = t(units === "m" ? "units.showFeet" : "units.showMetres");
  button.setAttribute("aria-label", label);
  button.title = label;
}

function showRoute(app, answer, units) {
  const panel = byId("directions");
  const summary = byId("route-summary");
  const reason = byId("route-reason");
  const legs = clear(byId("route-legs"));
  clearSteps();
  panel.dataset.mode = answer.mode;
  panel.dataset.units = units;
  showNamedClosures(app, namedClosures(answer.closures));
  if (!answer.route) {
    app.shownRoute = null;
    clearRouteDrawing(app);
    summary.textContent = "";
    reason.textContent = t("route.none", { reason: answer.reason || t("route.unreachable") });
    show(reason, true);
    panel.dataset.state = "unreachable";
    return;
  }
  const route = answer.route;
  app.shownRoute = route;
  // A route may come with a reason too (a closed connector it went around, say).
  reason.textContent = answer.reason || "";
  show(reason, Boolean(answer.reason));
  summary.textContent = t(answer.mode === "wheelchair" ? "route.stepFree" : "route.onFoot", {
    distance: formatDistance(route.distance, units),
    time: formatSeconds(route.time),
  });
  summary.dataset.distance = String(route.distance);
  summary.dataset.time = String(route.time);
  route.legs.forEach((leg, index) => {
    const button = h("button", { type: "button", class: "link", "data-leg": index,
      "data-level-uid": leg.levelUid }, legText(app, leg, units)); // prettier-ignore
    button.addEventListener("click", () => app.showLevel(leg.levelUid));
    legs.append(h("li", {}, button));
  });
  drawRoute(app, answer);
  showSteps(app, route, units, (maneuver) =>
    maneuver.viaIndex === null || maneuver.viaIndex === undefined
      ? maneuver.instruction
      : withStop(maneuver.instruction, maneuver.viaIndex));
  placeRoute(app, route);
  panel.dataset.state = "ready";
}

// The units toggle, wired on the first call (main.js calls updateRoute once the map is
// drawn): feet <-> metres, kept in the URL, the route asked again for its sentences.
function wireUnits(app) {
  const button = byId("route-units");
  if (button.dataset.wired) {
    return;
  }
  button.dataset.wired = "true";
  button.addEventListener("click", () => {
    app.view.units = shownUnits(app) === "m" ? "ft" : "m";
    app.save();
    updateRoute(app);
  });
}

export async function updateRoute(app) {
  const panel = byId("directions");
  if (app.placedTrip === undefined) {
    app.placedTrip = app.linkedPlace ? tripOf(app.view) : null; // the link's view is kept
  }
  wireUnits(app);
  markNearest(app);
  const units = shownUnits(app);
  showUnitsButton(units);
  byId("from-name").textContent = waypointName(app, app.view.from);
  byId("to-name").textContent = waypointName(app, app.view.to);
  showShaping(app);
  showStops(app, (waypoint) => waypointName(app, waypoint));
  const ticket = (app.routeTicket = (app.routeTicket || 0) + 1);
  if (!app.view.from || !app.view.to) {
    app.shownRoute = null;
    clearRouteDrawing(app);
    clear(byId("route-legs"));
    clearSteps();
    byId("route-summary").textContent = "";
    show(byId("route-reason"), false);
    showNamedClosures(app, []);
    panel.dataset.state = "idle";
    panel.dataset.units = units;
    return;
  }
  panel.dataset.state = "loading";
  byId("route-summary").textContent = t("route.finding");
  const shaped = shapedRequest(app.view, waypointInput);
  let answer;
  try {
    const asked = graphql(app.key, routeQuery(shaped), {
      map: app.mapId,
      from: waypointInput(app.view.from),
      to: waypointInput(app.view.to),
      mode: app.view.mode,
      units: units === "m" ? "metric" : "imperial",
      ...shaped.values,
    });
    // The closures drawn are read again with each route: the route avoids what is closed now.
    const [data] = await Promise.all([asked, refreshClosures(app)]);
    answer = data.route;
  } catch (error) {
    if (ticket !== app.routeTicket) {
      return;
    }
    app.shownRoute = null;
    clearRouteDrawing(app);
    clearSteps();
    byId("route-summary").textContent = "";
    showNamedClosures(app, []);
    byId("route-reason").textContent = t("route.unavailable", { message: error.message });
    show(byId("route-reason"), true);
    panel.dataset.state = "error";
    return;
  }
  if (ticket !== app.routeTicket) {
    return; // a newer request is on its way
  }
  for (const given of [answer.from, answer.to, ...(answer.via || [])]) {
    if (given && given.id && given.name && !app.knownLocations.has(given.id)) {
      app.knownLocations.set(given.id, { id: given.id, name: given.name });
    }
  }
  if (app.view.to.kind === "nearest") {
    keepChosen(app, answer.to);
  }
  byId("from-name").textContent = waypointName(app, app.view.from);
  byId("to-name").textContent = waypointName(app, app.view.to);
  showStops(app, (waypoint) => waypointName(app, waypoint), answer);
  showRoute(app, answer, units);
}
