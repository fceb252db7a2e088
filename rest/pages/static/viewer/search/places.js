// The Locations card's search box (issue 47): the API's `search` on the map shown (flag
// search), so typos ("fitnes centr"), unit numbers and category words ("restroom",
// "trash") find places on every level of the map, one row per place with its floor and
// kind. An empty box shows the map's location list (map/locations.js); with a tag filter,
// only the places it lets through. A result shows its level and offers "From here" and
// "To here". When the key may not search, names are filtered on the page as before.

import { graphql } from "../api.js";
import { byId, h, named, show } from "../dom.js";
import { t } from "../i18n.js";
import { goToLocation, renderLocations } from "../map/locations.js";
import { restop } from "../roving.js";
import { stopButton } from "../route/stops.js";

const SEARCH = `query ViewerSearch($q: String!, $map: ID!, $perPage: Int) {
  search(q: $q, unitMapId: $map, perPage: $perPage) {
    paging { nextPage }
    data { kind id name floorId locationId category matched }
  }
}`;

const LOCATIONS = `query ViewerAllLocations($map: ID!) {
  locations(unitMapId: $map) { data { id name x y floors { id } tags { key value } } }
}`;

// A pause in typing this long asks the server; each keystroke would be a request, and
// the answers to all but the last are thrown away anyway.
const PAUSE_MS = 150;
const PER_PAGE = 20; // rows shown; "type more" says when there are more
const FILTERED_PER_PAGE = 50; // with a tag filter, which may leave out many of them

let waiting = null; // the pause's timer
let asking = null; // the AbortController of the request in flight

// "restroom.female" or "fitness_centre" as words.
function kindOf(found) {
  return found.category ? found.category.replace(/[._]+/g, " ").trim() : "";
}

// What a row calls a place: its name, else what it is ("Restroom female": an IMDF venue
// leaves many unnamed), else its id.
function nameOf(found) {
  const name = found.name && found.name.trim();
  if (name) {
    return name;
  }
  const kind = kindOf(found);
  if (kind) {
    return kind[0].toUpperCase() + kind.slice(1);
  }
  return found.kind === "unit" ? t("place.unitNoName", { id: found.id }) : t("place.noName", { id: found.id });
}

function stopAsking() {
  clearTimeout(waiting);
  waiting = null;
  if (asking) {
    asking.abort();
    asking = null;
  }
}

// The box changed: the location list at once when it is empty, else a search after the
// pause (the list says "loading" meanwhile).
export function searchTyped(app) {
  stopAsking();
  if (!app.view.q.trim()) {
    showPlaces(app);
    return;
  }
  byId("location-list").dataset.state = "loading";
  waiting = setTimeout(() => showPlaces(app), PAUSE_MS);
}

// The list for the box as it is: the map's locations, or what `search` finds.
export async function showPlaces(app) {
  stopAsking();
  const q = app.view.q.trim();
  const problem = byId("search-problem");
  const list = byId("location-list");
  if (!q) {
    show(problem, false);
    list.setAttribute("aria-label", t("locations.list"));
    renderLocations(app);
    setStatus("");
    return;
  }
  const controller = new AbortController();
  asking = controller;
  list.dataset.state = "loading";
  const filtered = Boolean(app.view.tags.trim());
  let page;
  try {
    const variables = { q, map: app.mapId, perPage: filtered ? FILTERED_PER_PAGE : PER_PAGE };
    page = (await graphql(app.key, SEARCH, variables, controller.signal)).search;
  } catch (error) {
    if (controller.signal.aborted) {
      return; // a newer search, or an emptied box, took over
    }
    asking = null;
    problem.textContent = t("search.unavailable", { message: error.message });
    show(problem, true);
    list.setAttribute("aria-label", t("locations.list"));
    renderLocations(app, q);
    setStatus("");
    return;
  }
  asking = null;
  show(problem, false);
  const allowed = filtered ? new Set(app.locations.map((location) => location.id)) : null;
  const found = page.data.filter((one) => one.locationId && (!allowed || allowed.has(one.locationId)));
  renderResults(app, q, found, Boolean(page.paging.nextPage));
}

function setStatus(text) {
  byId("search-status").textContent = text;
}

function renderResults(app, q, found, more) {
  const list = byId("location-list");
  list.replaceChildren();
  list.setAttribute("aria-label", t("search.found", { q }));
  for (const one of found) {
    const name = nameOf(one);
    const hasName = Boolean(one.name && one.name.trim()); // else the kind is its name already
    const where = [app.floorName(one.floorId), hasName && kindOf(one)].filter(Boolean).join(" · ");
    const button = h("button", { type: "button", class: "location-name", "aria-expanded": "false",
      "data-role": "show" }, named(name), named(` ${where}`, "small")); // prettier-ignore
    const row = h("li", { class: "place-row", "data-location-id": one.locationId, "data-place-id": one.id,
      "data-kind": one.kind, "data-floor-id": one.floorId || "", "data-category": one.category || "",
      "data-matched": one.matched, "data-name": name }, button); // prettier-ignore
    button.addEventListener("click", () => choose(app, row, one));
    list.append(row);
  }
  if (!found.length) {
    list.append(h("li", { class: "muted" }, t("search.noMatch")));
  } else if (more) {
    list.append(h("li", { class: "muted", "data-role": "more" }, t("search.more")));
  }
  restop(list, "button");
  list.dataset.count = String(found.length);
  list.dataset.source = "search";
  list.dataset.state = "ready";
  const count = { count: found.length };
  setStatus(found.length ? t(more ? "search.countMore" : "search.count", count) : t("search.none"));
}

// A result chosen: its "From here" and "To here" (only its own row has them), its level
// and a mark on it (a unit's panel opens).
async function choose(app, row, found) {
  const list = byId("location-list");
  for (const other of list.querySelectorAll(".place-actions")) {
    other.remove();
  }
  for (const other of list.querySelectorAll('[aria-expanded="true"]')) {
    other.setAttribute("aria-expanded", "false");
  }
  const name = row.dataset.name;
  const actions = h("div", { class: "place-actions", role: "group", "aria-label": t("search.with", { name }) });
  const ends = [["from", "search.fromHere", "place.fromLabel"], ["to", "search.toHere", "place.toLabel"]];
  for (const [end, text, label] of ends) {
    const button = h("button", { type: "button", class: "small", "data-role": end,
      "aria-label": t(label, { name }) }, t(text)); // prettier-ignore
    button.addEventListener("click", () => {
      remember(app, found, name);
      app.setWaypoint(end, { kind: "location", id: found.locationId });
    });
    actions.append(button);
  }
  actions.append(stopButton(app, name, { kind: "location", id: found.locationId }, () => remember(app, found, name)));
  row.querySelector('[data-role="show"]').setAttribute("aria-expanded", "true");
  row.append(actions);
  restop(list, "button", row.querySelector('[data-role="show"]'));
  remember(app, found, name);
  const location = await locationOf(app, found.locationId);
  if (location) {
    goToLocation(app, location);
    return;
  }
  // Where the location list is not available: the level, and the unit when it is one.
  const level = app.levelOfFloor(found.floorId);
  if (found.kind === "unit" && app.model.units.has(found.id)) {
    app.selectUnit(found.id);
  } else if (level) {
    app.showLevel(level.uid);
  }
}

// The waypoint's name for the directions card (waypointName reads knownLocations).
function remember(app, found, name) {
  if (!app.knownLocations.has(found.locationId)) {
    app.knownLocations.set(found.locationId, { id: found.locationId, name });
  }
}

let everyLocation = null; // the map's locations, asked once when a result needs one

// The location (with its point) of a result: listed already, else from the map's whole
// list (a tag filter may have left it out); null when the key may not list locations.
async function locationOf(app, id) {
  const known = app.knownLocations.get(id);
  if (known && known.floors) {
    return known;
  }
  if (!everyLocation) {
    everyLocation = graphql(app.key, LOCATIONS, { map: app.mapId })
      .then((data) => data.locations.data)
      .catch(() => []);
  }
  const found = (await everyLocation).find((location) => location.id === id) || null;
  if (found) {
    app.knownLocations.set(id, found);
  }
  return found;
}
