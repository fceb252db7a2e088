// The MapLibre page (docs/viewer.md, "MapLibre page"): floorgate's style.json and tiles
// drawn by MapLibre GL JS, a level switcher from tiles.json `levels`, and a route drawn
// from the route's GeoJSON. Everything comes from this server with the key in a header.

import {
  ApiError, forgetKey, getJson, graphql, storeKey, storedKey, takeKeyFromFragment,
} from "./api.js";
import { MapLabels } from "./labels.js";
import { levelButtons, levelFilter, levelLabel } from "./levels.js";
import {
  addRouteLayers, askRoute, clearRoute, drawRoute, listSteps, routeLevels, showRouteLevel,
  summaryText, unitsOfLocale, ROUTE_LAYER,
} from "./route.js";

const SOURCE = "floorgate"; // the style's vector source (parsing/geo/tile_style.py)
const MAPS_QUERY = `query($asset: ID!) { unitMaps(assetId: $asset, perPage: 100) {
  data { id geojsonUrl levelTags { key values { value } } } } }`;
const $ = (id) => document.getElementById(id);
const assetId = document.body.dataset.assetId;
const page = { map: null, level: null, levels: [], levelNames: {}, labels: null, routeMap: null,
  from: null, to: null }; // prettier-ignore
window.floorgatePage = page; // for tests and for poking at it in DevTools

function setState(state, message) {
  document.body.dataset.state = state;
  $("status").textContent = message;
}

function askKey(problem) {
  setState("key", "An API key is needed.");
  $("key-problem").hidden = !problem;
  $("key-problem").textContent = problem || "";
  $("key-dialog").hidden = false;
  $("key-input").focus();
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("key-input").value.trim();
  if (key) {
    storeKey(key);
    window.location.reload();
  }
});
$("forget-key").addEventListener("click", () => {
  forgetKey();
  window.location.reload();
});

// The asset's georeferenced map with the most floors (ties: the first id), as the tiles
// draw each floor from the map with the most levels; `?map=` names another.
function routeMapOf(maps) {
  const chosen = new URLSearchParams(window.location.search).get("map");
  const georeferenced = maps.filter((m) => m.geojsonUrl);
  if (chosen) {
    return georeferenced.find((m) => m.id === chosen) || null;
  }
  // its floors as its levels' `floor` tags name them (not its units: a tower has thousands)
  const floors = (m) => m.levelTags.find((t) => t.key === "floor")?.values.length ?? 0;
  georeferenced.sort((a, b) => floors(b) - floors(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return georeferenced[0] || null;
}

// Show `level`: every style layer of floorgate's source filtered to it, the route's legs
// of it drawn (the others dimmed). Resolves once the map has drawn it.
function setLevel(level) {
  const { map } = page;
  page.level = level;
  for (const layer of map.getStyle().layers) {
    if (layer.source === SOURCE) {
      map.setFilter(layer.id, levelFilter(level));
    }
  }
  showRouteLevel(map, level, levelFilter);
  page.labels?.show(level);
  page.markLevel(level);
  document.body.dataset.level = level;
  $("status").textContent = `Showing ${levelLabel(level, page.levelNames)}.`;
  return settled();
}

// Resolves on the map's next `idle` (its tiles loaded and drawn).
function settled() {
  const { map } = page;
  return new Promise((resolve) => {
    map.once("idle", () => resolve(page.level));
    map.triggerRepaint();
  });
}

function waypointName(waypoint) {
  if (waypoint.id) {
    return waypoint.name || waypoint.id;
  }
  return `${waypoint.lat.toFixed(6)}, ${waypoint.lon.toFixed(6)} (${levelLabel(waypoint.level, page.levelNames)})`;
}

// A click on the map: a location there (a circle), else a unit (its location on the route
// map), else the point itself on the shown level. The first sets From, the second To.
function waypointAt(event) {
  const { map } = page;
  const box = [[event.point.x - 6, event.point.y - 6], [event.point.x + 6, event.point.y + 6]];
  const [location] = map.queryRenderedFeatures(box, { layers: ["locations"] });
  if (location) {
    return { id: String(location.properties.id), name: location.properties.name };
  }
  const [unit] = map.queryRenderedFeatures(event.point, { layers: ["units"] });
  if (unit) {
    return { id: `${page.routeMap}:${unit.properties.id}`, name: unit.properties.name };
  }
  return { lon: event.lngLat.lng, lat: event.lngLat.lat, level: page.level };
}

function asInput(waypoint) {
  return waypoint.id ? { id: waypoint.id }
    : { lon: waypoint.lon, lat: waypoint.lat, level: waypoint.level };
}

async function route(key) {
  const directions = $("directions");
  const problem = $("route-problem");
  problem.hidden = true;
  $("route-summary").textContent = "";
  $("route-steps").replaceChildren();
  clearRoute(page.map);
  $("from-name").textContent = page.from ? waypointName(page.from) : "not set";
  $("to-name").textContent = page.to ? waypointName(page.to) : "not set";
  if (!page.from || !page.to) {
    directions.dataset.state = "idle";
    return;
  }
  directions.dataset.state = "loading";
  const units = unitsOfLocale();
  directions.dataset.units = units;
  try {
    const answer = await askRoute(key, page.routeMap, asInput(page.from), asInput(page.to), units);
    $("from-name").textContent = answer.from.name || waypointName(page.from);
    $("to-name").textContent = answer.to.name || waypointName(page.to);
    if (!answer.route) {
      throw new ApiError(answer.reason || "No route.");
    }
    const geojson = answer.route.geojson;
    drawRoute(page.map, geojson);
    $("route-summary").textContent = summaryText(answer.route, units);
    listSteps($("route-steps"), geojson, (feature) => {
      setLevel(feature.properties.level);
      page.map.easeTo({ center: feature.geometry.coordinates });
    });
    page.routeLevels = routeLevels(geojson);
    directions.dataset.levels = page.routeLevels.join(",");
    directions.dataset.state = "ready";
    await setLevel(page.routeLevels[0] ?? page.level);
  } catch (error) {
    problem.textContent = error.message;
    problem.hidden = false;
    directions.dataset.state = "error";
  }
}

// MapLibre's map of floorgate's style; the key goes with this server's requests only
// (tiles.json and the tiles, under the public URL or the page's origin), in a header.
function newMap(maplibregl, key, style, tiles) {
  const ours = new Set([window.location.origin, new URL(tiles.tiles[0]).origin]);
  return new maplibregl.Map({
    container: "map",
    style,
    bounds: tiles.bounds,
    fitBoundsOptions: { padding: 24 },
    attributionControl: { compact: false }, // the data's licence line comes with tiles.json
    transformRequest: (url) => (ours.has(new URL(url, window.location.href).origin)
      ? { url, headers: { "API-Key": key } } : { url }),
  });
}

async function start() {
  takeKeyFromFragment();
  const key = storedKey();
  if (!key) {
    askKey("");
    return;
  }
  $("forget-key").hidden = false;
  const base = `/v1/assets/${encodeURIComponent(assetId)}`;
  const answers = await Promise.allSettled([
    getJson(key, `${base}/style.json`),
    getJson(key, `${base}/tiles.json`),
    graphql(key, MAPS_QUERY, { asset: assetId }).then((data) => data.unitMaps.data),
    import(document.body.dataset.library),
    import(document.body.dataset.placement), // the viewer's collision grid, for the labels
  ]);
  const failures = answers.filter((a) => a.status === "rejected").map((a) => a.reason);
  if (failures.length) {
    const keyProblem = failures.find((error) => error instanceof ApiError && error.keyProblem);
    if (keyProblem) {
      askKey(keyProblem.message);
    } else {
      setState("error", failures[0].message);
    }
    return;
  }
  const [style, tiles, maps, maplibregl, placement] = answers.map((a) => a.value);
  page.levels = tiles.levels;
  page.levelNames = tiles.level_names || {};
  page.routeMap = routeMapOf(maps)?.id ?? null;
  $("title").textContent = tiles.name || assetId;
  let map;
  try {
    map = newMap(maplibregl, key, style, tiles);
  } catch (error) {
    setState("error", `The map cannot be drawn here: ${error.message}`); // no WebGL, say
    return;
  }
  page.map = map;
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
  page.markLevel = levelButtons($("levels"), tiles.levels, page.levelNames, (level) => setLevel(level));
  page.setLevel = setLevel;
  page.settled = settled;
  map.on("error", (event) => setState("error", event.error?.message || "The map failed."));
  map.on("click", (event) => {
    const waypoint = waypointAt(event);
    if (!page.from || page.to) {
      page.from = waypoint;
      page.to = null;
    } else {
      page.to = waypoint;
    }
    route(key);
  });
  $("clear-route").addEventListener("click", () => {
    page.from = null;
    page.to = null;
    route(key);
  });
  map.on("load", async () => {
    addRouteLayers(map);
    page.labels = new MapLabels(map, SOURCE, levelFilter, placement.Grid); // at the fitted zoom
    await setLevel(tiles.default_level ?? tiles.levels[0]);
    const query = new URLSearchParams(window.location.search);
    if (query.get("from") && query.get("to")) {
      page.from = { id: query.get("from") };
      page.to = { id: query.get("to") };
      await route(key);
    }
    if (document.body.dataset.state !== "error") {
      setState("ready", `Showing ${levelLabel(page.level, page.levelNames)}.`);
    }
  });
  page.routeLayer = ROUTE_LAYER;
}

start();
