// A route from the API's GeoJSON (`route(geometry: "geojson") { geojson }`, docs/geojson.md
// "A route as GeoJSON"): a line layer of the shown level's legs, the other levels' legs
// dimmed, the connectors as circles, and the maneuvers listed as steps.

import { graphql } from "./api.js";

export const ROUTE_SOURCE = "route";
export const ROUTE_LAYER = "route"; // the shown level's legs
export const ROUTE_OTHER_LAYER = "route-other-levels";
export const ROUTE_CONNECTOR_LAYER = "route-connectors";
const EMPTY = { type: "FeatureCollection", features: [] };

const ROUTE_QUERY = `query($map: ID!, $from: WaypointInput!, $to: WaypointInput!, $units: String) {
  route(unitMapId: $map, from: $from, to: $to, units: $units, geometry: "geojson") {
    from { id name } to { id name } reason
    route { distance time geojson }
  } }`;

// Metres unless the browser's region counts in feet (US, Liberia, Myanmar).
export function unitsOfLocale(language = navigator.language || "") {
  const region = (language.split("-")[1] || "").toUpperCase();
  return ["US", "LR", "MM"].includes(region) || !region ? "imperial" : "metric";
}

export function addRouteLayers(map) {
  map.addSource(ROUTE_SOURCE, { type: "geojson", data: EMPTY });
  const legs = ["==", ["get", "feature_type"], "leg"];
  map.addLayer({
    id: ROUTE_OTHER_LAYER, type: "line", source: ROUTE_SOURCE, filter: ["all", legs, false],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: { "line-color": "#7a7a7a", "line-width": 3, "line-opacity": 0.35,
      "line-dasharray": [1, 2] },
  });
  map.addLayer({
    id: ROUTE_LAYER, type: "line", source: ROUTE_SOURCE, filter: ["all", legs, false],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: { "line-color": "#d62828", "line-width": 5 },
  });
  map.addLayer({
    id: ROUTE_CONNECTOR_LAYER, type: "circle", source: ROUTE_SOURCE,
    filter: ["all", ["==", ["get", "feature_type"], "connector"], false],
    paint: { "circle-radius": 7, "circle-color": "#6d28d9", "circle-stroke-color": "#ffffff",
      "circle-stroke-width": 2 },
  });
}

// The route layers' filters for `level`: its legs bold, the others dimmed.
export function showRouteLevel(map, level, levelFilter) {
  const legs = ["==", ["get", "feature_type"], "leg"];
  map.setFilter(ROUTE_LAYER, ["all", legs, ["==", ["get", "level"], level]]);
  map.setFilter(ROUTE_OTHER_LAYER, ["all", legs, ["!=", ["get", "level"], level]]);
  map.setFilter(ROUTE_CONNECTOR_LAYER,
    ["all", ["==", ["get", "feature_type"], "connector"], levelFilter(level)]);
}

export function clearRoute(map) {
  map.getSource(ROUTE_SOURCE).setData(EMPTY);
}

// Ask the route; its directions (`route` null with a `reason` when there is none).
export async function askRoute(key, mapId, from, to, units) {
  const data = await graphql(key, ROUTE_QUERY, { map: mapId, from, to, units });
  return data.route;
}

export function drawRoute(map, geojson) {
  map.getSource(ROUTE_SOURCE).setData(geojson);
}

function metres(feet, units) {
  return units === "metric" ? `${Math.round(feet * 0.3048)} m` : `${Math.round(feet)} ft`;
}

export function summaryText(route, units) {
  const minutes = Math.max(1, Math.round(route.time / 60));
  return `${metres(route.distance, units)}, about ${minutes} min`;
}

// The maneuvers as a list: each a button that shows its level and centres on it.
export function listSteps(list, geojson, onStep) {
  list.replaceChildren();
  const maneuvers = geojson.features.filter((f) => f.properties.feature_type === "maneuver");
  maneuvers.forEach((feature, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "step";
    button.dataset.level = feature.properties.level ?? "";
    button.textContent = feature.properties.instruction;
    button.addEventListener("click", () => onStep(feature, index));
    item.append(button);
    list.append(item);
  });
  return maneuvers.length;
}

// The levels the route's legs are on, in walking order, each once.
export function routeLevels(geojson) {
  const levels = [];
  for (const feature of geojson.features) {
    const level = feature.properties.level;
    if (feature.properties.feature_type === "leg" && level != null && !levels.includes(level)) {
      levels.push(level);
    }
  }
  return levels;
}
