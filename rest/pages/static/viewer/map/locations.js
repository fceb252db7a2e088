// The location list: the map's locations (E17, flag locations-resource) filtered on
// the server by the tag filter (the same terms as E17: `key`, `-key`, `key==value`,
// `key!=value`, comma-separated). What the search box finds is listed by
// search/places.js instead; without search, names are filtered here.

import { graphql } from "../api.js";
import { byId, clear, h, named, s, show } from "../dom.js";
import { t } from "../i18n.js";
import { restop, rove } from "../roving.js";
import { stopButton } from "../route/stops.js";

const LOCATIONS = `query ViewerLocations($map: ID!, $tags: String) {
  locations(unitMapId: $map, tags: $tags) {
    data { id name x y floors { id } tags { key value } }
  }
}`;

// The map's locations asked for: `{data}` or `{error}`, never a rejection (the page asks
// while it fetches the drawing, and reads the answer once the map is drawn).
export function askLocations(app) {
  const tags = app.view.tags.trim() || null;
  return graphql(app.key, LOCATIONS, { map: app.mapId, tags }).then(
    (data) => ({ data }),
    (error) => ({ error }),
  );
}

export async function loadLocations(app, asked = askLocations(app)) {
  const problem = byId("locations-problem");
  const list = byId("location-list");
  list.dataset.state = "loading";
  const { data, error } = await asked;
  if (error) {
    app.locations = [];
    problem.textContent = t("locations.unavailable", { message: error.message });
    show(problem, true);
  } else {
    app.locations = data.locations.data;
    show(problem, false);
  }
  for (const location of app.locations) {
    app.knownLocations.set(location.id, location);
  }
  labelLocations(app);
  const viewer = window.floorgateViewer;
  if (viewer && viewer.labelledAt === undefined) {
    viewer.labelledAt = performance.now(); // the first map with its places' names and icons
  }
}

export function floorOf(location) {
  return location.floors.length ? location.floors[0].id : null;
}

function tagValue(location, key) {
  const tag = location.tags.find((candidate) => candidate.key === key);
  return tag ? tag.value : null;
}

// The unit a location stands for (units become locations `svc:type=unit, svc:id=...`).
export function unitOf(location) {
  return tagValue(location, "svc:type") === "unit" ? tagValue(location, "svc:id") : null;
}

// The listed locations of each level, for its labels and icons (labels.js): a unit's
// location tells its unit's kind, another is a place of its own.
function labelLocations(app) {
  for (const level of app.model.levels) {
    const here = app.locations
      .filter((location) => app.levelOfFloor(floorOf(location)) === level)
      .map((location) => ({ ...location, unitId: unitOf(location) }));
    app.labels.addLocations(level, here);
  }
  app.labels.place();
}

// What the list calls a location: its name, else what it stands for (an unnamed unit's
// id), so no row is a blank button.
function nameOf(location) {
  const name = location.name && location.name.trim();
  if (name) {
    return name;
  }
  const unitId = unitOf(location);
  return unitId ? t("place.unitNoName", { id: unitId }) : t("place.noName", { id: location.id });
}

// The list, filtered by `text` in names and ids when given (where search is not available).
export function renderLocations(app, text = "") {
  const list = clear(byId("location-list"));
  const needle = text.trim().toLowerCase();
  const order = new Map(app.model.levels.map((level, index) => [level.floorId, index]));
  const shown = app.locations
    .filter((l) => !needle || l.name.toLowerCase().includes(needle) || l.id.toLowerCase().includes(needle))
    .sort((a, b) => (order.get(floorOf(a)) ?? 99) - (order.get(floorOf(b)) ?? 99)
      || a.name.localeCompare(b.name) || a.id.localeCompare(b.id)); // prettier-ignore
  for (const location of shown) {
    const name = h("button", { type: "button", class: "location-name", "data-location-id": location.id },
      named(nameOf(location)), named(` ${app.floorName(floorOf(location))}`, "small")); // prettier-ignore
    name.addEventListener("click", () => goToLocation(app, location));
    const from = h("button", { type: "button", class: "small", "data-role": "from",
      "aria-label": t("place.fromLabel", { name: nameOf(location) }) }, t("place.from")); // prettier-ignore
    const to = h("button", { type: "button", class: "small", "data-role": "to",
      "aria-label": t("place.toLabel", { name: nameOf(location) }) }, t("place.to")); // prettier-ignore
    from.addEventListener("click", () => app.setWaypoint("from", { kind: "location", id: location.id }));
    to.addEventListener("click", () => app.setWaypoint("to", { kind: "location", id: location.id }));
    const stop = stopButton(app, nameOf(location), { kind: "location", id: location.id });
    list.append(h("li", { "data-location-id": location.id }, name, from, to, stop));
  }
  restop(list, "button");
  if (!shown.length) {
    list.append(h("li", { class: "muted" }, t(app.locations.length ? "locations.noMatch" : "locations.none")));
  }
  list.dataset.count = String(shown.length);
  list.dataset.source = "locations";
  list.dataset.state = "ready";
}

// The list is one tab stop: up and down move between rows in the same column, left and
// right between a row's buttons (roving.js).
export function wireLocationList() {
  rove(byId("location-list"), "button", "li");
}

// Show a location: its level, a marker, and its unit's panel when it is a unit.
export function goToLocation(app, location) {
  const level = app.levelOfFloor(floorOf(location)) || app.currentLevel();
  if (level) {
    app.showLevel(level.uid);
  }
  for (const old of document.querySelectorAll(".location-marker")) {
    old.remove();
  }
  if (level) {
    const marker = s("g", { class: "location-marker", "data-location-id": location.id,
      transform: `translate(${location.x} ${location.y})` }); // prettier-ignore
    const body = s("g", { class: "marker-body" }); // sized in screen pixels (viewer.css)
    body.append(s("circle", { r: "12" }));
    marker.append(body);
    level.markers.append(marker);
  }
  const unitId = unitOf(location);
  if (unitId && app.model.units.has(unitId)) {
    app.selectUnit(unitId);
  }
}
