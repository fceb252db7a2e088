// Unit and location labels that a person can read on any building at any zoom.
//
// A label is written at its unit's pole of inaccessibility (the inside point farthest
// from the walls: an L-shaped room's centroid may lie outside it), in screen pixels (the
// stylesheet scales the font by `--upp`, canvas units per CSS pixel, which panzoom.js
// keeps up to date), and shown only where it fits inside its unit and does not collide
// with a label already shown. Labels are placed by priority: the selected unit, the
// route's ends, named units, then the rest (names of places that are not units); within
// each, bigger units first. A unit without a name has no label.
// Placement runs once per frame after the view changes, on the shown level only.

import { s } from "../dom.js";

export const FONT_PX = 12; // label text size on screen (viewer.css: .unit-labels)
const LINE_PX = FONT_PX * 1.3; // the box a line of text takes
const GAP_PX = 2; // space kept between two labels
const CELL_PX = 48; // collision grid cell
const FONT = `${FONT_PX}px system-ui, sans-serif`;

const PRIORITY = { selected: 0, route: 1, unit: 2, location: 3 };

// Signed distance from (x, y) to the edges of `rings` (an outline, then its holes):
// positive inside the shape (inside the outline, outside every hole).
function edgeDistance(x, y, rings) {
  let inside = false;
  let best = Infinity;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [ax, ay] = ring[i];
      const [bx, by] = ring[j];
      if (ay > y !== by > y && x < ((bx - ax) * (y - ay)) / (by - ay) + ax) {
        inside = !inside; // even-odd over every ring: a hole's inside is outside
      }
      const dx = bx - ax;
      const dy = by - ay;
      const length = dx * dx + dy * dy;
      const t = length ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / length)) : 0;
      best = Math.min(best, Math.hypot(x - (ax + t * dx), y - (ay + t * dy)));
    }
  }
  return inside ? best : -best;
}

function inside(x, y, rings) {
  return edgeDistance(x, y, rings) >= 0;
}

// The pole of inaccessibility of a ring (less its `holes`: courtyards, shafts), to
// within `precision` canvas units (the quadtree search of Mapbox's polylabel, written
// anew): {x, y, radius}.
export function poleOf(ring, precision, holes = []) {
  const rings = [ring, ...holes];
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of ring) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const size = Math.min(maxX - minX, maxY - minY);
  if (!(size > 0)) {
    return { x: (minX + maxX) / 2, y: (minY + maxY) / 2, radius: 0 };
  }
  const cell = (x, y, half) => {
    const d = edgeDistance(x, y, rings);
    return { x, y, half, d, max: d + half * Math.SQRT2 };
  };
  const queue = [];
  for (let x = minX; x < maxX; x += size) {
    for (let y = minY; y < maxY; y += size) {
      queue.push(cell(x + size / 2, y + size / 2, size / 2));
    }
  }
  let best = cell((minX + maxX) / 2, (minY + maxY) / 2, 0);
  for (let rounds = 0; queue.length && rounds < 4000; rounds++) {
    let top = 0;
    for (let i = 1; i < queue.length; i++) {
      if (queue[i].max > queue[top].max) {
        top = i;
      }
    }
    const current = queue[top];
    queue[top] = queue[queue.length - 1];
    queue.pop();
    if (current.d > best.d) {
      best = current;
    }
    if (current.max - best.d <= precision) {
      continue;
    }
    const half = current.half / 2;
    queue.push(
      cell(current.x - half, current.y - half, half),
      cell(current.x + half, current.y - half, half),
      cell(current.x - half, current.y + half, half),
      cell(current.x + half, current.y + half, half),
    );
  }
  return { x: best.x, y: best.y, radius: Math.max(best.d, 0) };
}

// Whether a box of half sizes (hw, hh) around the pole lies inside the ring.
function fits(item, hw, hh) {
  if (Math.hypot(hw, hh) <= item.radius) {
    return true; // inside the pole's circle
  }
  const { x, y, rings } = item;
  const corners = [
    [x - hw, y - hh],
    [x + hw, y - hh],
    [x + hw, y + hh],
    [x - hw, y + hh],
  ];
  if (!corners.every(([cx, cy]) => inside(cx, cy, rings))) {
    return false;
  }
  const within = ([px, py]) => px > x - hw && px < x + hw && py > y - hh && py < y + hh;
  return !rings.some((ring) => ring.some(within));
}

let measure = null;

function textWidth(text) {
  if (!measure) {
    measure = document.createElement("canvas").getContext("2d");
    measure.font = FONT;
  }
  return measure.measureText(text).width;
}

class Grid {
  constructor() {
    this.cells = new Map();
  }

  keys(box) {
    const keys = [];
    for (let cx = Math.floor(box.left / CELL_PX); cx <= Math.floor(box.right / CELL_PX); cx++) {
      for (let cy = Math.floor(box.top / CELL_PX); cy <= Math.floor(box.bottom / CELL_PX); cy++) {
        keys.push(`${cx},${cy}`);
      }
    }
    return keys;
  }

  hits(box) {
    return this.keys(box).some((key) =>
      (this.cells.get(key) || []).some(
        (other) => box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom,
      ),
    );
  }

  add(box) {
    for (const key of this.keys(box)) {
      const cell = this.cells.get(key);
      if (cell) {
        cell.push(box);
      } else {
        this.cells.set(key, [box]);
      }
    }
  }
}

// The labels of a drawn model; `place()` decides which show for the current view.
export class Labels {
  constructor(app) {
    this.app = app;
    this.items = new Map(); // level uid -> label items
  }

  // A label for each named unit of each level (`nameOf(unitId)`: its name or null).
  build(model, nameOf) {
    for (const level of model.levels) {
      level.labels.replaceChildren();
      const items = [];
      for (const unit of level.units) {
        const name = nameOf(unit.id);
        if (!name) {
          continue;
        }
        const size = Math.max(unit.box.width, unit.box.height);
        const holes = unit.holes || [];
        const pole = poleOf(unit.points, Math.max(size / 64, 0.05), holes);
        const node = s("text", {
          x: pole.x.toFixed(2),
          y: pole.y.toFixed(2),
          "data-unit-label": unit.id,
        });
        node.textContent = name;
        level.labels.append(node);
        items.push({
          node,
          unitId: unit.id,
          x: pole.x,
          y: pole.y,
          radius: pole.radius,
          rings: [unit.points, ...holes],
          width: textWidth(name),
          kind: "unit",
          area: unit.box.width * unit.box.height,
          shown: true,
        });
      }
      this.items.set(level.uid, items);
    }
    this.place();
  }

  // Labels of points that are not units (named locations), on `level`.
  addPoints(level, points) {
    const items = (this.items.get(level.uid) || []).filter((item) => item.kind !== "location");
    for (const item of this.items.get(level.uid) || []) {
      if (item.kind === "location") {
        item.node.remove();
      }
    }
    for (const point of points.filter((candidate) => candidate.name && candidate.name.trim())) {
      const node = s("text", { class: "location-label", x: point.x, y: point.y,
        "data-location-id": point.id }); // prettier-ignore
      node.textContent = point.name;
      level.labels.append(node);
      items.push({ node, x: point.x, y: point.y, radius: Infinity, rings: null,
        width: textWidth(point.name), kind: "location", area: 0, shown: true }); // prettier-ignore
    }
    this.items.set(level.uid, items);
  }

  priority(item, ends) {
    if (item.unitId && item.unitId === this.app.view.unit) {
      return PRIORITY.selected;
    }
    return item.unitId && ends.has(item.unitId) ? PRIORITY.route : PRIORITY[item.kind];
  }

  // Units at the route's ends (`<map id>:<unit id>` locations).
  routeEnds() {
    const ends = new Set();
    for (const end of [this.app.view.from, this.app.view.to]) {
      if (end && end.kind === "location" && end.id.startsWith(`${this.app.mapId}:`)) {
        ends.add(end.id.slice(this.app.mapId.length + 1));
      }
    }
    return ends;
  }

  // Show the labels that fit in their unit and collide with no label of higher priority.
  place() {
    const app = this.app;
    const level = app.model && app.currentLevel();
    const items = level && this.items.get(level.uid);
    if (!items || !app.panzoom) {
      return;
    }
    const upp = app.panzoom.upp;
    const rect = app.panzoom.box();
    const view = app.panzoom.view;
    const cx = view.x + view.w / 2;
    const cy = view.y + view.h / 2;
    const seen = { left: cx - (rect.width * upp) / 2, right: cx + (rect.width * upp) / 2,
      top: cy - (rect.height * upp) / 2, bottom: cy + (rect.height * upp) / 2 }; // prettier-ignore
    const ends = this.routeEnds();
    const order = items
      .map((item) => ({ item, rank: this.priority(item, ends) }))
      .sort((a, b) => a.rank - b.rank || b.item.area - a.item.area);
    const grid = new Grid();
    for (const { item, rank } of order) {
      const hw = ((item.width + GAP_PX) * upp) / 2;
      const hh = ((LINE_PX + GAP_PX) * upp) / 2;
      let show = item.x + hw > seen.left && item.x - hw < seen.right;
      show = show && item.y + hh > seen.top && item.y - hh < seen.bottom;
      show = show && (rank <= PRIORITY.route || !item.rings || fits(item, hw, hh));
      if (show) {
        const box = { left: (item.x - hw) / upp, right: (item.x + hw) / upp,
          top: (item.y - hh) / upp, bottom: (item.y + hh) / upp }; // prettier-ignore
        show = !grid.hits(box);
        if (show) {
          grid.add(box);
        }
      }
      if (show !== item.shown) {
        item.shown = show;
        item.node.classList.toggle("off", !show);
      }
    }
  }
}
