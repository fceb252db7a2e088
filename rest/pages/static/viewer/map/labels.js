// The names and icons of a level's places, readable on any building at any zoom (issue
// 48, points 3, 4 and 6; docs/viewer.md, "Labels, icons and markers").
//
// Each place is one group at its anchor (a unit's pole of inaccessibility, a location's
// point, a drawn connector's centre) whose body is drawn in CSS pixels and scaled by
// `--upp` (canvas units per CSS pixel, kept by panzoom.js), so text, dots and icons keep
// their size on screen. Once a frame after the view changes, on the shown level only,
// the places are placed in order of importance (`rank`): a label inside its unit where it
// fits, else beside a small dot (or its icon, or the route's A or B marker when the
// place is a route's end) on the first free side, else not until the view is zoomed in.
// No two shown labels overlap, nor a label and a marker. Icons (map/icons.js) are
// always drawn; their label only where the name says more than the icon. A name written
// right to left (Arabic, Hebrew) is laid out so, anchored on the side it reads from
// (`direction`: SVG text has no `dir="auto"`; the map itself is left to right, viewer.css).

import { s } from "../dom.js";
import { ICON_RADIUS, ICONS, iconNode, kindName, kindOfCategory, kindOfName, kindOfTags, saysMore } from "./icons.js";
import { textDirection } from "../i18n.js";
import { centredBox, discBox, DOT_RADIUS, FONT_PX, freeSide, Grid, LINE_PX, GAP_PX, sideOffset } from "./placement.js";
import { fits, poleOf } from "./pole.js";

export { FONT_PX, poleOf };

const FONT = `${FONT_PX}px system-ui, sans-serif`;
const MARKER_RADIUS = 11; // the route's markers (route/steps.js): 22 px across
const AROUND_PX = 40; // places this far outside the map's box are not placed
const TIMINGS = 60; // the last placements' times kept (ms), for tests and benchmarks

// Importance, first placed first (docs/viewer.md): the selected unit, the route's ends,
// places with an icon, public amenities, named places (bigger first), units' numbers
// ("212D"), quiet names.
const RANK = { selected: 0, route: 1, icon: 2, amenity: 3, named: 4, code: 5, quiet: 6 };
const CODE = /^\S*\d\S*$/; // one word holding a digit: a unit's number

// Names a machine gave: "Room 12", "Unit 3", "Non-public area 16", "Restroom (female) 2".
const GENERATED = /^(room|unit|area|space|non-public area|inaccessible space|open to below|walkway|corridor|storage|structure|office|shop|restroom|unit space)( \([^)]*\))? \d+$/i;
// A quiet name (generated, or a place a visitor does not enter) is named only this many
// times zoomed in from the level's fitted view, or when selected or a route's end (issue
// 66, point 1; parsing/imdf/label_rank.py says the same for the tiles and landmarks).
const QUIET_ZOOM = 2;
const NON_PUBLIC = /(^|\s)(imdf-)?nonpublic(\.|\s|$)/i; // a category, or a class naming one

let measure = null;

function textWidth(text) {
  if (!measure) {
    measure = document.createElement("canvas").getContext("2d");
    measure.font = FONT;
  }
  return measure.measureText(text).width;
}

function tagOf(tags, key) {
  const found = (tags || []).find((tag) => tag.key === key);
  return found ? found.value : null;
}

// A name as shown on `level`'s map: without the floor it is on ("Restroom 4, Concourse").
function shownName(name, floorNames) {
  let text = String(name || "").trim();
  for (const floor of floorNames) {
    if (floor && text.toLowerCase().endsWith(`, ${floor.toLowerCase()}`)) {
      text = text.slice(0, text.length - floor.length - 2).trim();
    }
  }
  return text;
}

// A label's text-anchor for its direction: a right-to-left name starts at its right end,
// so the side "start" meant (text reading on from the marker) is its "end".
const MIRRORED = { start: "end", end: "start", middle: "middle" };

// The labels of a drawn model; `place()` decides which show for the current view.
export class Labels {
  constructor(app) {
    this.app = app;
    this.items = new Map(); // level uid -> places, for each level built
    this.unbuilt = new Map(); // level uid -> level not yet shown (built when it first is)
    this.waiting = new Map(); // level uid -> its locations, until it is built
    this.nameOf = () => null;
    this.timings = []; // ms per placement, the latest last
  }

  floorNames(level) {
    return [this.app.levelName(level), level.name, this.app.floorName(level.floorId)];
  }

  // A place on `level`: its group, body, dot and text; `render` fills them.
  add(level, fields) {
    const item = { shown: null, area: 0, rings: null, radius: Infinity, kind: null, ...fields };
    item.node = s("g", { class: "place", transform: `translate(${item.x.toFixed(2)} ${item.y.toFixed(2)})`,
      "data-place": item.type }); // prettier-ignore
    item.body = s("g", { class: "marker-body" });
    item.dot = s("circle", { class: "place-dot off", r: String(DOT_RADIUS) });
    item.text = s("text", { class: item.type === "location" ? "location-label off" : "off" });
    if (item.unitId) {
      item.text.setAttribute("data-unit-label", item.unitId);
    } else if (item.locationId) {
      item.text.setAttribute("data-location-id", item.locationId);
    }
    item.body.append(item.dot, item.text);
    item.node.append(item.body);
    level.labels.append(item.node);
    this.render(item);
    return item;
  }

  // The item's name, icon and rank, after its name or kind changed.
  render(item) {
    item.text.textContent = item.name || "";
    if (item.locationId && !item.unitId) {
      item.text.setAttribute("data-location-id", item.locationId); // a connector's, named by it
    }
    item.width = textWidth(item.name || "");
    item.rtl = textDirection(item.name) === "rtl";
    if (item.rtl) {
      item.text.setAttribute("direction", "rtl");
    } else {
      item.text.removeAttribute("direction");
    }
    if (item.icon) {
      item.icon.remove();
      item.icon = null;
    }
    if (item.kind && ICONS[item.kind]) {
      // a drawn connector's derived place ("Stairs") is named by its kind, in the page's words
      const name = item.name && !(item.type === "connector" && item.generated) ? item.name : kindName(item.kind);
      item.icon = iconNode(item.kind, name);
      if (item.unitId) {
        item.icon.setAttribute("data-place-unit", item.unitId);
      }
      if (item.connectorId) {
        item.icon.setAttribute("data-connector-id", item.connectorId);
      }
      if (item.locationId) {
        item.icon.setAttribute("data-location-id", item.locationId);
      }
      item.body.prepend(item.icon);
    }
    item.useful = Boolean(item.name) && (!item.icon || saysMore(item.name, item.kind));
    item.quiet = Boolean(item.generated || item.nonPublic || GENERATED.test(item.name || ""));
    const name = (item.name || "").trim();
    item.tier = item.icon ? RANK.icon : item.quiet ? RANK.quiet : item.amenity ? RANK.amenity
      : CODE.test(name) ? RANK.code : RANK.named; // prettier-ignore
    item.shown = null; // placed anew
  }

  // The places of each level (`itemsOf`), built when the level is first shown: finding
  // the labels' poles is the page's biggest work after the drawing, and a visitor sees
  // one level at a time. `nameOf(unitId)`: the unit's name or null.
  build(model, nameOf) {
    this.nameOf = nameOf;
    this.items.clear();
    this.waiting.clear();
    this.unbuilt = new Map(model.levels.map((level) => [level.uid, level]));
    this.place();
  }

  // Every level's places (those not yet shown built now): what a closure's connector is
  // called is found among them (map/closures.js).
  allItems() {
    for (const level of [...this.unbuilt.values()]) {
      this.itemsOf(level);
    }
    return [...this.items.values()];
  }

  // A place for each named unit (and each unit of a kind with an icon) and each drawn
  // connector of `level`, then its locations (`addLocations`).
  itemsOf(level) {
    if (this.items.has(level.uid) || !this.unbuilt.has(level.uid)) {
      return this.items.get(level.uid);
    }
    this.unbuilt.delete(level.uid);
    const nameOf = this.nameOf;
    level.labels.replaceChildren();
    const items = [];
    const floors = this.floorNames(level);
    for (const unit of level.units) {
      const name = shownName(nameOf(unit.id), floors) || null;
      const kind = kindOfCategory(unit.category) || kindOfName(name);
      if (!name && !kind) {
        continue;
      }
      const size = Math.max(unit.box.width, unit.box.height);
      const holes = unit.holes || [];
      const pole = poleOf(unit.points, Math.max(size / 64, 0.05), holes);
      items.push(this.add(level, { type: "unit", unitId: unit.id, name, kind, x: pole.x, y: pole.y,
        radius: pole.radius, rings: [unit.points, ...holes], area: unit.box.width * unit.box.height,
        categoryKind: kind, nonPublic: NON_PUBLIC.test(unit.category || "") })); // prettier-ignore
    }
    for (const connector of level.connectors || []) {
      items.push(this.add(level, { type: "connector", connectorId: connector.id, name: null,
        kind: connector.kind, x: connector.x, y: connector.y, box: connector.box })); // prettier-ignore
    }
    this.items.set(level.uid, items);
    if (this.waiting.has(level.uid)) {
      const locations = this.waiting.get(level.uid);
      this.waiting.delete(level.uid);
      this.addLocations(level, locations);
    }
    return this.items.get(level.uid);
  }

  // The map's locations on `level` ({id, name, x, y, tags, unitId}): a unit's location
  // gives the unit the kind its tags name; another becomes a place of its own, unless it
  // is a drawn connector's (the connector takes its name) or a unit's of the same kind.
  addLocations(level, locations) {
    if (this.unbuilt.has(level.uid)) {
      this.waiting.set(level.uid, locations); // added when the level is built
      return;
    }
    const all = this.items.get(level.uid) || [];
    for (const item of all.filter((candidate) => candidate.type === "location")) {
      item.node.remove();
    }
    const items = all.filter((item) => item.type !== "location");
    const units = new Map(items.filter((item) => item.unitId).map((item) => [item.unitId, item]));
    const floors = this.floorNames(level);
    for (const location of locations) {
      const name = shownName(location.name, floors) || null;
      const kind = kindOfTags(location.tags) || kindOfName(name);
      const generated = tagOf(location.tags, "svc:name") === "generated";
      const amenity = tagOf(location.tags, "svc:amenity") === "yes";
      const nonPublic = NON_PUBLIC.test(tagOf(location.tags, "imdf:category") || "");
      if (location.unitId) {
        const unit = units.get(location.unitId);
        const changed = unit && (kind !== unit.kind || generated !== Boolean(unit.generated)
          || nonPublic !== Boolean(unit.nonPublic)); // prettier-ignore
        if (changed) {
          Object.assign(unit, { kind: kind || unit.categoryKind, generated, amenity, nonPublic });
          this.render(unit);
        }
        continue;
      }
      if (!name && !kind) {
        continue;
      }
      const [x, y] = [Number(location.x), Number(location.y)];
      const connector = kind && items.find((item) => item.type === "connector" && item.kind === kind
        && !item.name && near(item.box, x, y)); // prettier-ignore
      if (connector) {
        connector.name = name;
        connector.generated = generated; // a drawn connector's derived place: "Elevator"
        connector.locationId = location.id;
        this.render(connector);
        continue;
      }
      const host = items.find((item) => item.rings && inRings(item.rings, x, y));
      if (kind && host && host.kind === kind) {
        continue; // the unit's icon stands for it (an amenity in its restroom)
      }
      items.push(this.add(level, { type: "location", locationId: location.id, name, kind, x, y,
        area: host ? host.area : 0, generated, amenity, nonPublic })); // prettier-ignore
    }
    this.items.set(level.uid, items);
  }

  // Units at the route's ends (`<map id>:<unit id>` locations), by end.
  routeEnds() {
    const ends = new Map();
    for (const end of ["from", "to"]) {
      const waypoint = this.app.view[end];
      if (waypoint && waypoint.kind === "location" && waypoint.id.startsWith(`${this.app.mapId}:`)) {
        ends.set(end, waypoint.id.slice(this.app.mapId.length + 1));
      }
    }
    return ends;
  }

  rank(item, endUnits) {
    if (item.unitId && item.unitId === this.app.view.unit) {
      return RANK.selected;
    }
    return item.unitId && endUnits.has(item.unitId) ? RANK.route : item.tier;
  }

  // Whether the view is zoomed in on `level` enough for quiet names (QUIET_ZOOM).
  zoomedIn(level, rect, upp) {
    const box = this.app.fittedBox ? this.app.fittedBox(level) : null;
    if (!box || !rect.width || !rect.height) {
      return true;
    }
    return Math.max(box.width / rect.width, box.height / rect.height) / upp >= QUIET_ZOOM;
  }

  // Show each place's label where it is free (module comment), in order of importance.
  place() {
    const app = this.app;
    const level = app.model && app.currentLevel();
    const items = level && this.itemsOf(level);
    if (!items || !app.panzoom) {
      return;
    }
    const started = performance.now();
    const upp = app.panzoom.upp;
    const rect = app.panzoom.box();
    const view = app.panzoom.view;
    const [cx, cy] = [(view.x + view.w / 2) / upp, (view.y + view.h / 2) / upp];
    const seen = { left: cx - rect.width / 2, right: cx + rect.width / 2,
      top: cy - rect.height / 2, bottom: cy + rect.height / 2 }; // prettier-ignore
    const grid = new Grid();
    // The route's markers first: no label goes under them; a route end's unit is
    // labelled beside its A or B when its own place is taken.
    const ends = this.routeEnds();
    const markerOf = new Map();
    for (const marker of level.markers.querySelectorAll(".route-marker")) {
      const [mx, my] = [Number(marker.dataset.x) / upp, Number(marker.dataset.y) / upp];
      grid.add(discBox(mx, my, MARKER_RADIUS));
      const unitId = ends.get(marker.dataset.end);
      if (unitId) {
        markerOf.set(unitId, { sx: mx, sy: my });
      }
    }
    // Icons are always drawn: no label goes under any of them.
    for (const item of items) {
      if (item.icon) {
        grid.add(discBox(item.x / upp, item.y / upp, ICON_RADIUS));
      }
    }
    const endUnits = new Set(ends.values());
    const quietNamed = items.some((item) => item.quiet) && this.zoomedIn(level, rect, upp);
    const order = items
      .map((item) => ({ item, rank: this.rank(item, endUnits) }))
      .sort((a, b) => a.rank - b.rank || b.item.area - a.item.area);
    // The route's ends and the selected unit first, wherever they fit; then every name
    // that fits inside its unit (a room's name in the room reads best); then the others
    // beside their markers, in the same order.
    const spots = new Map();
    const take = (item, spot) => {
      spots.set(item, spot);
      for (const box of [spot && spot.box, spot && spot.dot]) {
        if (box) {
          grid.add(box);
        }
      }
    };
    const silent = (item, rank) => item.quiet && rank > RANK.route && !quietNamed;
    const inView = order.filter(({ item, rank }) => {
      if (silent(item, rank) && !item.icon) {
        return false; // not named at this zoom (an icon stays, unnamed)
      }
      const [sx, sy] = [item.x / upp, item.y / upp];
      return sx > seen.left - AROUND_PX && sx < seen.right + AROUND_PX &&
        sy > seen.top - AROUND_PX && sy < seen.bottom + AROUND_PX; // prettier-ignore
    });
    for (const { item, rank } of inView) {
      if (rank <= RANK.route) {
        take(item, this.inside(item, grid, upp) || this.beside(item, rank, grid, seen, markerOf.get(item.unitId), upp));
      }
    }
    for (const { item, rank } of inView) {
      if (rank > RANK.route && item.useful && !item.icon && !silent(item, rank)) {
        const spot = this.inside(item, grid, upp);
        if (spot) {
          take(item, spot);
        }
      }
    }
    for (const { item, rank } of inView) {
      if (!spots.has(item)) {
        const named = item.useful && !silent(item, rank);
        take(item, named ? this.beside(item, rank, grid, seen, null, upp) : null);
      }
    }
    for (const item of items) {
      this.show(item, spots.get(item) || null, spots.has(item));
    }
    this.timings.push(performance.now() - started);
    if (this.timings.length > TIMINGS) {
      this.timings.shift();
    }
  }

  // The label inside its unit (or on its point), where it fits and meets nothing placed.
  inside(item, grid, upp) {
    if (item.icon || !item.name) {
      return null;
    }
    const box = centredBox(item.x / upp, item.y / upp, item.width);
    const hw = ((item.width + GAP_PX) * upp) / 2;
    const hh = ((LINE_PX + GAP_PX) * upp) / 2;
    const fitting = (!item.rings || fits(item, hw, hh)) && !grid.hits(box);
    return fitting ? { mode: "inside", box, dx: 0, dy: 0, anchor: "middle" } : null;
  }

  // The label beside its icon, its route marker (A or B) or a dot of its own, on the
  // first free side; the selected unit and the route's ends are never left out.
  beside(item, rank, grid, seen, marker, upp) {
    const [sx, sy] = [item.x / upp, item.y / upp];
    if (item.icon) {
      const free = freeSide(grid, sx, sy, item.width, ICON_RADIUS, seen);
      return free && { mode: "icon", ...free, ...sideOffset(free.side, ICON_RADIUS) };
    }
    if (marker) {
      const free = freeSide(grid, marker.sx, marker.sy, item.width, MARKER_RADIUS, seen);
      if (free) {
        const offset = sideOffset(free.side, MARKER_RADIUS);
        return { mode: "marker", ...free, ...offset, dx: offset.dx + marker.sx - sx, dy: offset.dy + marker.sy - sy };
      }
    }
    const dot = discBox(sx, sy, DOT_RADIUS);
    const free = !grid.hits(dot) && freeSide(grid, sx, sy, item.width, DOT_RADIUS, seen);
    if (free) {
      return { mode: "dot", dot, ...free, ...sideOffset(free.side, DOT_RADIUS) };
    }
    return rank <= RANK.route ? { mode: "inside", box: null, dx: 0, dy: 0, anchor: "middle" } : null;
  }

  // Write what changed since the last placement (nothing, mostly, when panning).
  show(item, spot, inView) {
    const key = spot ? `${spot.mode} ${spot.dx.toFixed(1)} ${spot.dy.toFixed(1)} ${spot.anchor}` : inView ? "icon" : "";
    if (key === item.shown) {
      return;
    }
    item.shown = key;
    item.node.classList.toggle("off", !spot && !(inView && item.icon));
    item.text.classList.toggle("off", !spot);
    item.dot.classList.toggle("off", !spot || spot.mode !== "dot");
    item.node.dataset.mode = spot ? spot.mode : "";
    if (spot) {
      item.text.setAttribute("x", spot.dx.toFixed(1));
      item.text.setAttribute("y", spot.dy.toFixed(1));
      item.text.setAttribute("text-anchor", item.rtl ? MIRRORED[spot.anchor] : spot.anchor);
    }
  }
}

// Whether (x, y) lies in a drawn connector's box, or as near it as its size.
function near(box, x, y) {
  const pad = Math.max(box.width, box.height, 2) / 2;
  return x >= box.x - pad && x <= box.x + box.width + pad && y >= box.y - pad && y <= box.y + box.height + pad;
}

function inRings(rings, x, y) {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [ax, ay] = ring[i];
      const [bx, by] = ring[j];
      if (ay > y !== by > y && x < ((bx - ax) * (y - ay)) / (by - ay) + ax) {
        inside = !inside;
      }
    }
  }
  return inside;
}
