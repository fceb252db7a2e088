// floorgate map viewer (docs/viewer.md): a frontend of this server's GraphQL API.
// The page is static; this script asks for a key, loads the map and its parsed
// document, draws it, and keeps the view in the URL, in the visitor's language (i18n.js).

import { fetchDocument, graphql, KEY_PROBLEMS } from "./api.js";
import { Attributes } from "./units/attributes.js";
import { updateRoute } from "./route/directions.js";
import { wireShaping } from "./route/shaping.js";
import { refreshClosures } from "./map/closures.js";
import { byId, h, s, show } from "./dom.js";
import { chooseLanguage, setLanguage, t, translatePage } from "./i18n.js";
import { drawDocument, drawHidden } from "./map/drawing.js";
import { Labels } from "./map/labels.js";
import { buildLegend } from "./units/legend.js";
import { buildLevelSwitcher, markLevel } from "./map/levels.js";
import { askLocations, loadLocations, wireLocationList } from "./map/locations.js";
import { PanZoom } from "./map/panzoom.js";
import { restop, rove } from "./roving.js";
import { loadNearest, placeOf } from "./search/nearest.js";
import { searchTyped, showPlaces } from "./search/places.js";
import { forgetKey, MAX_STOPS, readView, storedKey, storeKey, takeKeyFromFragment, writeView } from "./session.js";
import { closeUnitPanel, openUnitPanel } from "./units/unit-panel.js";

takeKeyFromFragment(); // first of all: the key leaves the address bar at once

const MAP = `query ViewerMap($id: ID!) {
  unitMap(id: $id) {
    id name assetId url styleType
    levelTags { key name values { name value } }
    units { id name floorId }
  }
}`;

const MAPS = `query ViewerMaps { unitMaps(perPage: 200) { data { id name } } }`;

const FLOORS = `query ViewerFloors($id: ID!) { asset(id: $id) { floors { id name sort } } }`;

const UNITS = ".level:not(.off) .unit"; // the shown level's units: one tab stop

const svg = byId("map");
const app = {
  mapId: document.body.dataset.mapId,
  key: null,
  map: null,
  model: null,
  view: readView(),
  // Whether the link named the level or the area to show: a route then opens there,
  // else on its origin's level with the first leg fitted (directions.js).
  linkedPlace: false,
  panzoom: null,
  pick: null, // "from" or "to" while the next map click sets that waypoint
  locations: [],
  knownLocations: new Map(), // every location seen, by id: names of waypoints
  unitsById: new Map(),
  floorNames: new Map(), // floor id -> name: E3's, else the map's `floor` level tag
  floorOrder: new Map(), // floor id -> E3 sort position
};
app.linkedPlace = Boolean(app.view.level || app.view.box);
// The page's language before any word is shown: the link's `lang=`, else the browser's.
const browserLanguages = navigator.languages?.length ? navigator.languages : [navigator.language];
setLanguage(chooseLanguage(app.view.lang, browserLanguages));
translatePage();
app.attributes = new Attributes(app);
app.labels = new Labels(app);
window.floorgateViewer = { app }; // for tests and the render benchmark

app.save = () => writeView(app.view);

// A floor's name: E3's, else the map's `floor` level tag, else the showing level's name.
app.floorName = (floorId) => {
  if (!floorId) {
    return "";
  }
  const level = app.model && app.levelOfFloor(floorId);
  return app.floorNames.get(floorId) || (level && level.name) || floorId;
};

app.levelName = (level) =>
  (level.floorId && app.floorNames.get(level.floorId)) || level.name || level.uid;

app.levelByUid = (uid) => app.model.levels.find((level) => level.uid === uid) || null;

app.levelOfFloor = (floorId) =>
  (floorId && app.model.levels.find((level) => level.floorId === floorId)) || null;

app.currentLevel = () => app.levelByUid(app.view.level) || app.model.levels[0] || null;

app.showLevel = (uid) => {
  const level = app.levelByUid(uid) || app.model.levels[0];
  if (!level) {
    return;
  }
  for (const other of app.model.levels) {
    other.group.classList.toggle("off", other !== level);
  }
  svg.dataset.level = level.uid;
  app.view.level = level.uid;
  markLevel(level.uid);
  restop(svg, UNITS);
  app.labels.place();
  app.save();
};

app.selectUnit = (unitId) => {
  for (const old of svg.querySelectorAll(".unit.selected")) {
    old.classList.remove("selected");
  }
  const unit = app.model.units.get(unitId);
  if (!unit) {
    return;
  }
  app.showLevel(unit.level.uid);
  unit.node.classList.add("selected");
  ring("selected", unit);
  restop(svg, UNITS, unit.node);
  app.view.unit = unitId;
  app.labels.place();
  app.save();
  openUnitPanel(app, unitId);
};

app.deselect = () => {
  for (const old of svg.querySelectorAll(".unit.selected")) {
    old.classList.remove("selected");
  }
  app.view.unit = null;
  ring("selected", null);
  app.labels.place();
  app.save();
  closeUnitPanel();
};

app.setWaypoint = (end, waypoint) => {
  app.view[end] = waypoint;
  app.save();
  setPick(null);
  app.labels.place();
  updateRoute(app);
};

// A stop between From and To (route/stops.js), at most MAX_STOPS; and one taken out.
app.addStop = (waypoint) => {
  if (app.view.via.length >= MAX_STOPS) {
    return;
  }
  app.view.via = [...app.view.via, waypoint];
  app.save();
  updateRoute(app);
};

app.removeStop = (index) => {
  app.view.via = app.view.via.filter((_, at) => at !== index);
  if (app.view.via.length < 2) {
    app.view.optimize = false; // nothing to order
  }
  app.save();
  updateRoute(app);
};

// The waypoint for a unit: its location (`<map id>:<unit id>`) when the map has it,
// else its centroid on its level's floor.
function unitWaypoint(unitId) {
  const id = `${app.mapId}:${unitId}`;
  if (app.knownLocations.has(id)) {
    return { kind: "location", id };
  }
  const unit = app.model.units.get(unitId);
  return { kind: "point", x: unit.centroid[0], y: unit.centroid[1], floorId: unit.level.floorId };
}

function setStatus(text) {
  byId("status").textContent = text;
}

function setPick(end) {
  app.pick = end;
  svg.classList.toggle("picking", Boolean(end));
  const hint = byId("pick-hint");
  hint.textContent = end ? t(end === "from" ? "pick.from" : "pick.to") : "";
  show(hint, Boolean(end));
  byId("pick-from").setAttribute("aria-pressed", String(end === "from"));
  byId("pick-to").setAttribute("aria-pressed", String(end === "to"));
}

function activate(target, clientX, clientY) {
  const unitNode = target.closest && target.closest(".unit");
  if (app.pick) {
    if (unitNode) {
      app.setWaypoint(app.pick, unitWaypoint(unitNode.dataset.unitId));
    } else {
      const at = app.panzoom.toCanvas(clientX, clientY);
      const level = app.currentLevel();
      if (at && level) {
        app.setWaypoint(app.pick, { kind: "point", x: at.x, y: at.y, floorId: level.floorId });
      }
    }
  } else if (unitNode) {
    app.selectUnit(unitNode.dataset.unitId);
  } else {
    app.deselect();
  }
}

// The box of a level's shapes. Text is left out: its box follows font metrics, which
// change with the zoom and as fonts load, and "fit" should always show the same.
function shapesBox(level) {
  let box = null;
  for (const shape of level.content.querySelectorAll(":not(g):not(text)")) {
    const b = shape.getBBox();
    if (b.width > 0 || b.height > 0) {
      box = box
        ? {
            x: Math.min(box.x, b.x),
            y: Math.min(box.y, b.y),
            right: Math.max(box.right, b.x + b.width),
            bottom: Math.max(box.bottom, b.y + b.height),
          }
        : { x: b.x, y: b.y, right: b.x + b.width, bottom: b.y + b.height };
    }
  }
  return box && { x: box.x, y: box.y, width: box.right - box.x, height: box.bottom - box.y };
}

// Show `box` ({x, y, width, height}, canvas units) whole and keep it in the URL.
app.fitBox = (box) => {
  app.panzoom.fit(box);
  app.view.box = { ...app.panzoom.view };
  app.save();
};

// The box "fit" shows of `level` (its shapes', else the drawing's; the drawing's without a
// level), read once a level: the labels measure how far the view is zoomed in from it
// (map/labels.js).
const fittedBoxes = new WeakMap();
app.fittedBox = (level) => {
  if (!level) {
    return { x: 0, y: 0, width: app.model.width, height: app.model.height };
  }
  if (!fittedBoxes.has(level)) {
    let box = null;
    try {
      box = shapesBox(level);
    } catch {
      box = null;
    }
    if (!box || box.width <= 0 || box.height <= 0) {
      box = { x: 0, y: 0, width: app.model.width, height: app.model.height };
    }
    fittedBoxes.set(level, box);
  }
  return fittedBoxes.get(level);
};

function fitLevel() {
  const level = app.currentLevel();
  const box = app.fittedBox(level);
  app.panzoom.fit(box);
  app.view.box = null; // a fitted level is what a link without `box` opens
  app.save();
}

// Pan and zoom go into the URL once they settle: browsers limit how often a page may
// replace its address (Safari: 100 times in 30 s), and a drag moves the view per frame.
const BOX_SAVE_MS = 300;
let boxSaving = null;

function keepBox(view) {
  app.view.box = { ...view };
  clearTimeout(boxSaving);
  boxSaving = setTimeout(app.save, BOX_SAVE_MS);
}

// The link's pan and zoom, where it shows some of the drawing; else the level fitted.
function showLinkedArea() {
  const box = app.view.box;
  if (box && app.panzoom.shows(box)) {
    app.panzoom.setView(box);
    app.view.box = { ...app.panzoom.view }; // within the zoom's bounds
    app.save();
  } else {
    fitLevel();
  }
}

// Enter or Space on the focused unit selects it; the arrow keys move between the shown
// level's units (roving.js), and the view follows a unit that is out of sight.
function unitKeys(event) {
  const unitNode = event.target.closest && event.target.closest(".unit");
  if (unitNode && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    const box = unitNode.getBoundingClientRect();
    activate(unitNode, box.left + box.width / 2, box.top + box.height / 2);
  }
}

// An outline of `unit` (or none) above everything drawn on its level: walls drawn over
// the units would hide the unit's own outline. `kind` is "focus" or "selected".
function ring(kind, unit) {
  for (const old of svg.querySelectorAll(`.unit-ring.${kind}`)) {
    old.remove();
  }
  if (unit) {
    const points = unit.node.getAttribute("points");
    const outline = points ? s("polygon", { points }) : s("path", { d: unit.node.getAttribute("d") });
    outline.setAttribute("class", `unit-ring ${kind}`);
    unit.level.markers.prepend(outline);
  }
}

function followFocus(event) {
  const unit = event.target.closest && event.target.closest(".unit") && app.model.units.get(event.target.dataset.unitId);
  ring("focus", unit);
  if (!unit) {
    return;
  }
  const box = unit.node.getBoundingClientRect();
  const seen = svg.getBoundingClientRect();
  const centre = { x: box.left + box.width / 2, y: box.top + box.height / 2 };
  if (centre.x < seen.left || centre.x > seen.right || centre.y < seen.top || centre.y > seen.bottom) {
    app.panzoom.centreOn(unit.centroid[0], unit.centroid[1]);
  }
}

function wireControls() {
  svg.addEventListener("click", (event) => activate(event.target, event.clientX, event.clientY));
  svg.addEventListener("keydown", unitKeys);
  svg.addEventListener("focusin", followFocus);
  svg.addEventListener("focusout", () => ring("focus", null));
  rove(svg, UNITS);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      if (app.pick) {
        setPick(null);
      } else if (app.view.unit) {
        app.deselect();
      }
    }
  });
  byId("zoom-in").onclick = () => app.panzoom.zoomCentre(1.25);
  byId("zoom-out").onclick = () => app.panzoom.zoomCentre(0.8);
  byId("fit").onclick = fitLevel;
  const paths = byId("show-paths");
  paths.checked = app.view.paths;
  svg.classList.toggle("show-paths", app.view.paths);
  if (app.view.paths) {
    drawHidden(app.model);
  }
  paths.onchange = () => {
    app.view.paths = paths.checked;
    drawHidden(app.model);
    svg.classList.toggle("show-paths", paths.checked);
    app.save();
  };
  byId("show-labels").onchange = (event) => svg.classList.toggle("hide-labels", !event.target.checked);
  byId("show-text").onchange = (event) => svg.classList.toggle("show-text", event.target.checked);
  byId("close-panel").onclick = () => app.deselect();
  byId("unit-from").onclick = () => app.setWaypoint("from", unitWaypoint(app.view.unit));
  byId("unit-to").onclick = () => app.setWaypoint("to", unitWaypoint(app.view.unit));
  byId("pick-from").onclick = () => setPick(app.pick === "from" ? null : "from");
  byId("pick-to").onclick = () => setPick(app.pick === "to" ? null : "to");
  byId("unit-stop").onclick = () => app.addStop(unitWaypoint(app.view.unit));
  wireShaping(app, () => updateRoute(app));
  byId("swap-route").onclick = () => {
    // "The nearest" is no start: the place it chose is (or nothing, before an answer).
    [app.view.from, app.view.to] = [placeOf(app, app.view.to), app.view.from];
    app.view.via = [...app.view.via].reverse(); // the same stops, the other way
    app.save();
    updateRoute(app);
  };
  byId("clear-route").onclick = () => {
    app.view.from = null;
    app.view.to = null;
    app.view.via = [];
    app.view.optimize = false;
    app.save();
    updateRoute(app);
  };
  const filter = byId("tag-filter");
  filter.value = app.view.tags;
  let pending = null;
  filter.oninput = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      app.view.tags = filter.value;
      app.save();
      loadLocations(app).then(() => showPlaces(app));
    }, 400);
  };
  const search = byId("location-search");
  search.value = app.view.q;
  search.oninput = () => {
    app.view.q = search.value;
    app.save();
    searchTyped(app);
  };
  wireLocationList();
  byId("forget-key").onclick = () => {
    forgetKey();
    window.location.reload();
  };
}

async function loadOtherMaps() {
  const select = byId("map-select");
  try {
    const maps = (await graphql(app.key, MAPS)).unitMaps.data;
    const option = (map) =>
      h("option", { value: map.id, dir: "auto" }, t("bar.mapOption", { name: map.name, id: map.id }));
    select.replaceChildren(...maps.map(option));
    select.value = app.mapId;
    select.onchange = () => {
      window.location.assign(`/viewer/maps/${encodeURIComponent(select.value)}`);
    };
  } catch {
    select.closest("label").hidden = true;
  }
}

// The asset's floors (E3): their names and order win over the map's own level names.
async function loadFloors(assetId) {
  try {
    const asset = (await graphql(app.key, FLOORS, { id: assetId })).asset;
    for (const floor of asset ? asset.floors : []) {
      app.floorNames.set(floor.id, floor.name);
      app.floorOrder.set(floor.id, floor.sort);
    }
  } catch {
    // the map's level tags and level names still name the floors
  }
}

// Levels in floor order (E3's sort) when every level shows a floor of the asset, else in
// the document's order (lowest first, docs/unit-map-svg.md).
function orderLevels(model) {
  if (model.levels.every((level) => app.floorOrder.has(level.floorId))) {
    model.levels.sort((a, b) => app.floorOrder.get(a.floorId) - app.floorOrder.get(b.floorId));
  }
}

async function load() {
  setStatus(t("status.loadingMap"));
  const data = await graphql(app.key, MAP, { id: app.mapId });
  const map = data.unitMap;
  if (!map) {
    document.body.dataset.state = "missing";
    setStatus(t("status.noMap", { map: app.mapId }));
    return;
  }
  app.map = map;
  document.title = t("page.title", { map: map.name });
  byId("map-title").textContent = map.name;
  for (const tag of map.levelTags.filter((candidate) => candidate.key === "floor")) {
    for (const value of tag.values) {
      app.floorNames.set(value.value, value.name);
    }
  }
  for (const unit of map.units) {
    app.unitsById.set(unit.id, unit);
  }
  if (!map.url) {
    document.body.dataset.state = "empty";
    setStatus(t("status.noDrawing", { map: map.name }));
    return;
  }
  const locations = askLocations(app); // read once the map is drawn (its labels and icons)
  const [parsed] = await Promise.all([fetchDocument(map.url), loadFloors(map.assetId)]);
  app.model = drawDocument(svg, parsed);
  orderLevels(app.model);
  // A unit's name from the API; a unit without one is labelled nowhere on the map (an id
  // is no label), but named by its id for screen readers.
  const nameOf = (unitId) => {
    const unit = app.unitsById.get(unitId);
    return unit && unit.name && unit.name.trim() ? unit.name : null;
  };
  for (const level of app.model.levels) {
    for (const unit of level.units) {
      const label = t("unit.label", { name: nameOf(unit.id) || unit.id, level: app.levelName(level) });
      unit.node.setAttribute("aria-label", label);
    }
  }
  app.panzoom = new PanZoom(svg, app.model, keepBox);
  buildLevelSwitcher(app);
  const selected = app.model.units.get(app.view.unit);
  app.showLevel(app.levelByUid(app.view.level) ? app.view.level : selected ? selected.level.uid : null);
  showLinkedArea();
  wireControls();
  document.body.dataset.state = "ready";
  window.floorgateViewer.renderedAt = performance.now();
  performance.mark("floorgate-viewer-rendered");
  // Labels after the first paint: finding their places is the page's biggest work.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  app.labels.build(app.model, nameOf);
  app.panzoom.onScale(() => app.labels.place());
  const units = app.model.levels.reduce((sum, level) => sum + level.units.length, 0);
  const levels = app.model.levels.length;
  setStatus(t("status.ready", { map: map.name, levels: t("count.levels", { count: levels }),
    units: t("count.units", { count: units }) })); // prettier-ignore
  show(byId("forget-key"), true);
  // Then what the key may or may not see: each fails alone.
  loadOtherMaps();
  buildLegend(app);
  loadNearest(app);
  if (!app.view.from || !app.view.to) {
    refreshClosures(app); // else read with the route, below
  }
  await loadLocations(app, locations);
  await showPlaces(app);
  if (selected) {
    app.selectUnit(selected.id);
  }
  updateRoute(app);
}

function askForKey(problem) {
  const dialog = byId("key-dialog");
  const message = byId("key-problem");
  message.textContent = problem || "";
  show(message, Boolean(problem));
  show(dialog, true);
  document.body.dataset.state = "key";
  setStatus(t("status.keyNeeded"));
  const input = byId("key-input");
  input.value = "";
  input.focus();
  byId("key-form").onsubmit = (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      return;
    }
    storeKey(key);
    input.value = "";
    show(dialog, false);
    start();
  };
}

async function start() {
  app.key = storedKey();
  if (!app.key) {
    askForKey(null);
    return;
  }
  try {
    await load();
  } catch (error) {
    if (KEY_PROBLEMS.has(error.code)) {
      forgetKey();
      askForKey(t("status.keyRefused", { message: error.message }));
      return;
    }
    document.body.dataset.state = "error";
    setStatus(t("status.failed", { message: error.message }));
  }
}

start();
