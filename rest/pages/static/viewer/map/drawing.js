// Draws a parsed map document (application/vnd.map+json, docs/unit-map-svg.md)
// as SVG built element by element. The document is user data: only known element
// kinds are drawn, only known attributes are copied, each checked against what it may
// hold (numbers, colours, point lists, path data), so no value can name another
// resource (no CSS url reference, no href) or carry markup. Images are never drawn.

import { s } from "../dom.js";

const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?(px|%)?$/i;
const PAINT =
  /^(none|transparent|currentcolor|#[0-9a-f]{3,8}|[a-z]{3,24}|(rgb|hsl)a?\([0-9.,%\s]+\))$/i;
const POINTS = /^[0-9eE.,\s+-]*$/;
const PATH_DATA = /^[MmLlHhVvCcSsQqTtAaZz0-9eE.,\s+-]*$/;
const TRANSFORM = /^(\s*(matrix|translate|scale|rotate|skewX|skewY)\s*\([0-9eE.,\s+-]*\)\s*,?)*$/;
const KEYWORD = /^[a-z0-9-]{1,24}$/i;
const FONT = /^[a-z0-9 ,'"-]{1,80}$/i;
const DASHES = /^[0-9.,\s]{1,80}$/;

const ATTRIBUTES = {
  x: NUMBER, y: NUMBER, width: NUMBER, height: NUMBER,
  x1: NUMBER, y1: NUMBER, x2: NUMBER, y2: NUMBER,
  cx: NUMBER, cy: NUMBER, r: NUMBER, rx: NUMBER, ry: NUMBER,
  points: POINTS, d: PATH_DATA, transform: TRANSFORM,
  fill: PAINT, stroke: PAINT, "stroke-width": NUMBER, opacity: NUMBER,
  "fill-opacity": NUMBER, "stroke-opacity": NUMBER, "stroke-miterlimit": NUMBER,
  "stroke-linecap": KEYWORD, "stroke-linejoin": KEYWORD, "stroke-dasharray": DASHES,
  "fill-rule": KEYWORD, "font-size": NUMBER, "font-weight": KEYWORD,
  "font-family": FONT, "text-anchor": KEYWORD,
}; // prettier-ignore

const GRAPHICS = {
  Polygon: "polygon",
  Polyline: "polyline",
  Rect: "rect",
  Line: "line",
  Path: "path",
  Circle: "circle",
  Ellipse: "ellipse",
  Text: "text",
};

// A Level's or layer's paint (docs/svg-parsing.md, "Group paint") goes on its <g>, for
// its children to inherit as in SVG; never geometry or a transform (units' points
// already include every transform).
const NOT_GROUP_PAINT = new Set([
  "x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry",
  "points", "d", "transform",
]); // prettier-ignore

function copyChecked(source, target, skip) {
  for (const [name, pattern] of Object.entries(ATTRIBUTES)) {
    const value = source[name];
    if ((typeof value === "string" || typeof value === "number") && !(skip && skip.has(name))) {
      const text = String(value).trim();
      if (text && pattern.test(text)) {
        target.setAttribute(name, text);
      }
    }
  }
}

// "x,y x,y ..." as numbers; null if anything is not a number.
export function parsePoints(text) {
  if (typeof text !== "string" || !POINTS.test(text)) {
    return null;
  }
  const numbers = text.trim().split(/[\s,]+/).filter(Boolean).map(Number);
  if (numbers.length % 2 || numbers.some((n) => !Number.isFinite(n))) {
    return null;
  }
  const points = [];
  for (let i = 0; i < numbers.length; i += 2) {
    points.push([numbers[i], numbers[i + 1]]);
  }
  return points;
}

// Area centroid of a polygon (its vertex mean when the area is zero).
export function centroid(points) {
  let area = 0;
  let cx = 0;
  let cy = 0;
  for (let i = 0; i < points.length; i++) {
    const [x0, y0] = points[i];
    const [x1, y1] = points[(i + 1) % points.length];
    const cross = x0 * y1 - x1 * y0;
    area += cross;
    cx += (x0 + x1) * cross;
    cy += (y0 + y1) * cross;
  }
  if (Math.abs(area) < 1e-9) {
    const n = points.length;
    return [points.reduce((a, p) => a + p[0], 0) / n, points.reduce((a, p) => a + p[1], 0) / n];
  }
  return [cx / (3 * area), cy / (3 * area)];
}

function bounds(points) {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

function drawGraphic(element, parent, inLayer) {
  const tag = GRAPHICS[element.type];
  if (!tag) {
    return; // Image and anything unknown: not drawn
  }
  const node = s(tag);
  copyChecked(element, node);
  if (tag === "text") {
    node.textContent = typeof element.text === "string" ? element.text : "";
    if (inLayer) {
      node.classList.add("drawing-text"); // may sit in a transformed group: see docs
    }
  }
  parent.append(node);
}

const GEOMETRY = new Set(["x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r",
  "rx", "ry", "points", "d"]); // prettier-ignore
const PLAIN_NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

// Path data of an unfilled graphic's outline, or null when it cannot join a path as is.
function outlineOf(element) {
  const number = (name) => {
    const value = String(element[name] ?? "0").trim();
    return PLAIN_NUMBER.test(value) ? Number(value) : null;
  };
  if (element.transform) {
    return null;
  }
  if (element.type === "Polyline" || element.type === "Polygon") {
    const points = parsePoints(element.points);
    if (!points || points.length < 2) {
      return null;
    }
    return `M${points.join("L")}${element.type === "Polygon" ? "Z" : ""}`;
  }
  if (element.type === "Line") {
    const [x1, y1, x2, y2] = ["x1", "y1", "x2", "y2"].map(number);
    return [x1, y1, x2, y2].includes(null) ? null : `M${x1},${y1}L${x2},${y2}`;
  }
  if (element.type === "Path") {
    const d = typeof element.d === "string" ? element.d.trim() : "";
    return /^M/.test(d) && PATH_DATA.test(d) ? d : null; // a leading "m" is relative to the last
  }
  return null;
}

// Runs of unfilled lines with the same paint become one <path>: walls and door lines are
// thousands of elements on a real building, and the browser draws one path far faster
// than thousands of nodes. A filled shape is never merged: overlaps would change how it
// fills.
class Strokes {
  constructor(parent) {
    this.parent = parent;
    this.key = null;
    this.parts = [];
    this.first = null;
  }

  take(element, inherited) {
    if (!GRAPHICS[element.type] || element.type === "Text" || fillOf(element, inherited) !== "none") {
      return false;
    }
    const outline = outlineOf(element);
    if (!outline) {
      return false;
    }
    const paint = s("g");
    copyChecked(element, paint, GEOMETRY);
    const key = [...paint.attributes].map((a) => `${a.name}=${a.value}`).join(";");
    if (key !== this.key) {
      this.flush();
      this.key = key;
      this.first = paint;
    }
    this.parts.push(outline);
    return true;
  }

  flush() {
    if (this.parts.length) {
      const path = s("path", { d: this.parts.join(" ") });
      for (const attribute of this.first.attributes) {
        path.setAttribute(attribute.name, attribute.value);
      }
      this.parent.append(path);
    }
    this.key = null;
    this.parts = [];
    this.first = null;
  }
}

// The rings of a unit's `shape.holes` (docs/svg-parsing.md, "Holes"): courtyards,
// shafts. A ring that cannot be read, or has fewer than 3 points, is left out.
function holesOf(shape) {
  const holes = Array.isArray(shape.holes) ? shape.holes : [];
  return holes.map(parsePoints).filter((ring) => ring && ring.length >= 3);
}

// A point inside the area the rings fill by the even-odd rule, near `[x, y]`: `[x, y]`
// when it is inside, else the middle of the widest filled stretch of the horizontal line
// through it (a cloister's centroid is in its courtyard).
function insidePoint(rings, [x, y]) {
  const crossings = [];
  for (const ring of rings) {
    for (let i = 0; i < ring.length; i++) {
      const [x0, y0] = ring[i];
      const [x1, y1] = ring[(i + 1) % ring.length];
      if (y0 <= y !== y1 <= y) {
        crossings.push(x0 + ((y - y0) / (y1 - y0)) * (x1 - x0));
      }
    }
  }
  crossings.sort((a, b) => a - b);
  let best = null;
  for (let i = 0; i + 1 < crossings.length; i += 2) {
    if (crossings[i] <= x && x <= crossings[i + 1]) {
      return [x, y];
    }
    if (!best || crossings[i + 1] - crossings[i] > best[1] - best[0]) {
      best = [crossings[i], crossings[i + 1]];
    }
  }
  return best ? [(best[0] + best[1]) / 2, y] : [x, y];
}

function drawUnit(element, parent, level, model) {
  const shape = element.shape;
  const points = shape && parsePoints(shape.points);
  if (typeof element.id !== "string" || !points || points.length < 3) {
    return;
  }
  const holes = holesOf(shape);
  // Without holes a polygon, as ever; with them one path of every ring, filled even-odd
  // so the courtyard shows the floor beneath and a click there is no click on the unit.
  const rings = [points, ...holes];
  const outline = holes.length
    ? { d: rings.map((ring) => `M${ring.join("L")}Z`).join(""), "fill-rule": "evenodd" }
    : { points: points.map((p) => p.join(",")).join(" ") };
  const node = s(holes.length ? "path" : "polygon", {
    class: "unit",
    ...outline,
    tabindex: "-1", // the level's units are one tab stop: main.js makes one of them 0
    role: "button",
    "data-unit-id": element.id,
    "data-unit-uid": typeof element.uid === "string" ? element.uid : null,
    "data-level-uid": level.uid,
  });
  const skip = holes.length ? ["points", "transform", "fill-rule"] : ["points", "transform"];
  copyChecked(shape, node, new Set(skip));
  const middle = centroid(points);
  const unit = {
    id: element.id,
    node,
    level,
    points,
    holes, // labels.js places a label's pole by `points` alone (not yet by the holes)
    centroid: holes.length ? insidePoint(rings, middle) : middle,
    box: bounds(points),
    fill: node.getAttribute("fill"),
    category: typeof shape.class === "string" ? shape.class : "", // `imdf-<category>`
  };
  level.units.push(unit);
  if (!model.units.has(element.id)) {
    model.units.set(element.id, unit);
  }
  parent.append(node);
}

// The fill a group passes down: its own when it sets a valid one, else its parent's.
function fillOf(element, inherited) {
  const own = typeof element.fill === "string" ? element.fill.trim() : "";
  return own && PAINT.test(own) ? own.toLowerCase() : inherited;
}

const CONNECTOR_KINDS = new Set(["stairs", "elevator", "ramp", "escalator"]);
const number = (value) => (PLAIN_NUMBER.test(String(value ?? "").trim()) ? Number(value) : null);

// The box of a graphic read from its own attributes (no layout), else null.
function ownBox(element) {
  if (element.type === "Rect") {
    const [x, y, width, height] = ["x", "y", "width", "height"].map((n) => number(element[n] ?? 0));
    return [x, y, width, height].includes(null) ? null : { x, y, width, height };
  }
  if (element.type === "Circle" || element.type === "Ellipse") {
    const [cx, cy] = [number(element.cx ?? 0), number(element.cy ?? 0)];
    const rx = number(element.type === "Circle" ? element.r : element.rx);
    const ry = number(element.type === "Circle" ? element.r : element.ry);
    return [cx, cy, rx, ry].includes(null) ? null : { x: cx - rx, y: cy - ry, width: 2 * rx, height: 2 * ry };
  }
  const points = element.type === "Line"
    ? [[number(element.x1), number(element.y1)], [number(element.x2), number(element.y2)]]
    : parsePoints(element.points); // prettier-ignore
  return points && points.length && !points.flat().includes(null) ? bounds(points) : null;
}

// A drawn connector (`data-connector`, `data-connector-id`: docs/unit-map-svg.md) is shown
// as an icon in screen pixels (map/icons.js): its centre and box go on the level. A disc
// (a circle or an ellipse, as IMDF drawings mark a stop) is a marker, not the connector's
// shape, so it is not drawn in canvas units: the icon replaces it. Other shapes (a stair
// core's outline) are drawn as well. True when the element is not to be drawn.
function takeConnector(element, level) {
  const kind = typeof element["data-connector"] === "string" ? element["data-connector"] : "";
  if (kind === "door") {
    // a door between two levels of one height (docs/imdf.md): the opening is drawn, its
    // stop's disc is not, and it has no icon of its own
    return element.type === "Circle" || element.type === "Ellipse";
  }
  if (!CONNECTOR_KINDS.has(kind) || typeof element["data-connector-id"] !== "string") {
    return false;
  }
  const box = ownBox(element);
  if (box) {
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    level.connectors.push({ id: element["data-connector-id"], kind, x, y, box });
  }
  return Boolean(box) && (element.type === "Circle" || element.type === "Ellipse");
}

function drawChildren(elements, parent, level, model, inLayer, inherited) {
  const strokes = new Strokes(parent);
  for (const element of Array.isArray(elements) ? elements : []) {
    if (!element || typeof element !== "object") {
      continue;
    }
    if (takeConnector(element, level)) {
      continue;
    }
    if (strokes.take(element, inherited)) {
      continue;
    }
    strokes.flush();
    if (element.type === "Layer" || element.type === "UnitLayer") {
      const layer = s("g", {
        class: element.type === "UnitLayer" ? "layer unit-layer" : "layer",
        "data-layer": typeof element.name === "string" ? element.name : null,
      });
      copyChecked(element, layer, NOT_GROUP_PAINT);
      const fill = fillOf(element, inherited);
      if (element.name === "paths") {
        // Walk lines: hidden unless asked for, so drawn only then (drawHidden).
        layer.classList.add("paths-layer");
        model.hidden.push(() => drawChildren(element.elements, layer, level, model, true, fill));
      } else {
        drawChildren(element.elements, layer, level, model, true, fill);
      }
      parent.append(layer);
    } else if (element.type === "Unit") {
      drawUnit(element, parent, level, model);
    } else if (element.type !== "HitAreaLayer" && element.type !== "Level") {
      drawGraphic(element, parent, inLayer); // hit areas are invisible twins of units
    }
  }
  strokes.flush();
}

// Draw what was left out until shown (the walk `paths` layers), once.
export function drawHidden(model) {
  for (const draw of model.hidden.splice(0)) {
    draw();
  }
}

function text(value) {
  return typeof value === "string" ? value : "";
}

// Draw `documentJson` into `svg`; the model the rest of the viewer works on.
export function drawDocument(svg, documentJson) {
  const width = Number(documentJson.width) > 0 ? Number(documentJson.width) : 1000;
  const height = Number(documentJson.height) > 0 ? Number(documentJson.height) : 1000;
  const model = { width, height, levels: [], units: new Map(), hidden: [] };
  const root = s("g", { class: "drawing" });
  const elements = Array.isArray(documentJson.elements) ? documentJson.elements : [];
  for (const [index, element] of elements.entries()) {
    if (!element || element.type !== "Level") {
      continue;
    }
    const uid = text(element.uid) || `level-${index}`;
    const tags = element.tags && typeof element.tags === "object" ? element.tags : {};
    const group = s("g", { class: "level", "data-level-uid": uid, "data-level-index": index });
    const level = {
      uid,
      name: text(element.name),
      tags,
      floorId: typeof tags.floor === "string" ? tags.floor : null,
      group,
      units: [],
      connectors: [], // drawn connectors: {id, kind, x, y, box}, shown as icons
    };
    level.content = s("g", { class: "level-drawing" }); // what "fit" shows
    copyChecked(element, level.content, NOT_GROUP_PAINT);
    drawChildren(element.elements, level.content, level, model, false, fillOf(element, undefined));
    level.labels = s("g", { class: "unit-labels" });
    level.routeLayer = s("g", { class: "route-layer" });
    level.markers = s("g", { class: "markers" });
    group.append(level.content, level.labels, level.routeLayer, level.markers);
    model.levels.push(level);
    root.append(group);
  }
  svg.replaceChildren(root);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  return model;
}
