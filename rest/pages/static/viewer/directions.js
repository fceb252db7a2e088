// Directions: the `route` query (flag directions, permission
// service.distances.calculate) between two waypoints, drawn leg by leg on the levels.

import { graphql } from "./api.js";
import { byId, clear, formatFeet, formatSeconds, h, s, show } from "./dom.js";

const ROUTE = `query ViewerRoute($map: ID!, $from: WaypointInput!, $to: WaypointInput!,
    $mode: String) {
  route(unitMapId: $map, from: $from, to: $to, mode: $mode) {
    mode reason
    from { id name x y floorId }
    to { id name x y floorId }
    route {
      distance time steps
      legs {
        levelUid floorId distance time
        points { x y }
        connector { id kind x y fromLevelUid toLevelUid fromFloorId toFloorId distance time }
      }
    }
  }
}`;

const CONNECTOR_LETTERS = { elevator: "E", stairs: "S", ramp: "R", escalator: "X" };

function waypointInput(waypoint) {
  return waypoint.kind === "location"
    ? { id: waypoint.id }
    : { x: waypoint.x, y: waypoint.y, floorId: waypoint.floorId || null };
}

export function waypointName(app, waypoint) {
  if (!waypoint) {
    return "not set";
  }
  if (waypoint.kind === "location") {
    const known = app.knownLocations.get(waypoint.id);
    return known ? known.name : waypoint.id;
  }
  const where = waypoint.floorId ? ` on ${app.floorName(waypoint.floorId)}` : "";
  return `Point ${Math.round(waypoint.x)}, ${Math.round(waypoint.y)}${where}`;
}

export function clearRouteDrawing(app) {
  for (const level of app.model.levels) {
    level.routeLayer.replaceChildren();
  }
  for (const marker of document.querySelectorAll(".route-marker")) {
    marker.remove();
  }
}

function marker(level, x, y, letter, attributes) {
  const group = s("g", { class: "route-marker", ...attributes });
  group.append(
    s("circle", { cx: x, cy: y, r: "11" }),
    Object.assign(s("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central" }), {
      textContent: letter,
    }),
  );
  level.markers.append(group);
}

function drawRoute(app, route) {
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
          marker(at, connector.x, connector.y, letter, { ...attributes, "data-level-uid": uid });
        }
      }
    }
  });
  const first = route.legs[0];
  const last = route.legs[route.legs.length - 1];
  if (first && first.points.length && app.levelByUid(first.levelUid)) {
    const p = first.points[0];
    marker(app.levelByUid(first.levelUid), p.x, p.y, "A", { "data-end": "from" });
  }
  if (last && last.points.length && app.levelByUid(last.levelUid)) {
    const p = last.points[last.points.length - 1];
    marker(app.levelByUid(last.levelUid), p.x, p.y, "B", { "data-end": "to" });
  }
}

function legText(app, leg) {
  const level = app.levelByUid(leg.levelUid);
  const where = level ? app.levelName(level) : leg.floorId || leg.levelUid;
  const then = leg.connector
    ? `, then ${leg.connector.kind} to ${app.floorName(leg.connector.toFloorId) || leg.connector.toLevelUid}`
    : "";
  return `${where}: ${formatFeet(leg.distance)}${then}`;
}

function showRoute(app, answer) {
  const panel = byId("directions");
  const summary = byId("route-summary");
  const reason = byId("route-reason");
  const legs = clear(byId("route-legs"));
  const steps = clear(byId("route-steps"));
  panel.dataset.mode = answer.mode;
  if (!answer.route) {
    clearRouteDrawing(app);
    summary.textContent = "";
    reason.textContent = `No route: ${answer.reason || "unreachable"}`;
    show(reason, true);
    panel.dataset.state = "unreachable";
    return;
  }
  const route = answer.route;
  show(reason, false);
  summary.textContent = `${formatFeet(route.distance)} · ${formatSeconds(route.time)}` +
    (answer.mode === "wheelchair" ? " · wheelchair" : " · on foot"); // prettier-ignore
  summary.dataset.distance = String(route.distance);
  summary.dataset.time = String(route.time);
  route.legs.forEach((leg, index) => {
    const button = h("button", { type: "button", class: "link", "data-leg": index,
      "data-level-uid": leg.levelUid }, legText(app, leg)); // prettier-ignore
    button.addEventListener("click", () => app.showLevel(leg.levelUid));
    legs.append(h("li", {}, button));
  });
  for (const step of route.steps) {
    steps.append(h("li", {}, step));
  }
  drawRoute(app, route);
  if (route.legs.length && !route.legs.some((leg) => leg.levelUid === app.view.level)) {
    app.showLevel(route.legs[0].levelUid);
  }
  panel.dataset.state = "ready";
}

export async function updateRoute(app) {
  const panel = byId("directions");
  byId("from-name").textContent = waypointName(app, app.view.from);
  byId("to-name").textContent = waypointName(app, app.view.to);
  byId("wheelchair").checked = app.view.mode === "wheelchair";
  const ticket = (app.routeTicket = (app.routeTicket || 0) + 1);
  if (!app.view.from || !app.view.to) {
    clearRouteDrawing(app);
    clear(byId("route-legs"));
    clear(byId("route-steps"));
    byId("route-summary").textContent = "";
    show(byId("route-reason"), false);
    panel.dataset.state = "idle";
    return;
  }
  panel.dataset.state = "loading";
  byId("route-summary").textContent = "Finding the way...";
  let answer;
  try {
    const data = await graphql(app.key, ROUTE, {
      map: app.mapId,
      from: waypointInput(app.view.from),
      to: waypointInput(app.view.to),
      mode: app.view.mode,
    });
    answer = data.route;
  } catch (error) {
    if (ticket !== app.routeTicket) {
      return;
    }
    clearRouteDrawing(app);
    byId("route-summary").textContent = "";
    byId("route-reason").textContent = `Directions not available: ${error.message}`;
    show(byId("route-reason"), true);
    panel.dataset.state = "error";
    return;
  }
  if (ticket !== app.routeTicket) {
    return; // a newer request is on its way
  }
  for (const end of ["from", "to"]) {
    const given = answer[end];
    if (given && given.id && given.name) {
      app.knownLocations.set(given.id, { id: given.id, name: given.name });
    }
  }
  byId("from-name").textContent = waypointName(app, app.view.from);
  byId("to-name").textContent = waypointName(app, app.view.to);
  showRoute(app, answer);
}
