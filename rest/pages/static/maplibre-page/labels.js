// Names on the map (issue 66, point 2), drawn as HTML over MapLibre's canvas: the style has
// no text, since MapLibre's text needs glyph files no open font ships for every script
// (docs/viewer.md, "MapLibre page"). The browser's own fonts draw every language here.
//
// Each named location of the shown level (the tiles' `locations` layer) is a candidate, in
// the order of its `rank` (parsing/imdf/label_rank.py: a public place's own name, then a
// unit's number; a generated name or a non-public place only zoomed in QUIET_ZOOM levels
// past the fitted view). A label goes beside its dot on the first free side (right, left,
// below, above); none covers another label nor a dot; one that fits nowhere waits for a
// closer zoom. Placed once per frame after the view moves, tiles load or the level changes.

const FONT = "12px system-ui, sans-serif"; // page.css `.map-label`
const LINE_PX = 16; // the box a line of text takes
const GAP_PX = 2; // kept between two labels, or a label and a dot
const DOT_PX = 5; // the locations layer's circle: radius 4, stroke 1 (tile_style.py)
const AWAY_PX = DOT_PX + 3; // a label's text from its dot's centre
const QUIET = 2; // the rank of names shown only zoomed in
const QUIET_ZOOM = 1; // zoom levels past the fitted view (2x) before quiet names show
const TIMINGS = 60; // the last placements' times kept (ms), for tests and benchmarks

// The label's box on `side` of a dot at (x, y), with the gap, and where its text starts.
function sideBox(x, y, width, side) {
  const left = side === "right" ? x + AWAY_PX
    : side === "left" ? x - AWAY_PX - width : x - width / 2; // prettier-ignore
  const top = side === "below" ? y + AWAY_PX
    : side === "above" ? y - AWAY_PX - LINE_PX : y - LINE_PX / 2; // prettier-ignore
  const g = GAP_PX / 2;
  return { left: left - g, top: top - g, right: left + width + g, bottom: top + LINE_PX + g, x: left, y: top };
}

const SIDES = ["right", "left", "below", "above"];

export class MapLabels {
  // `map`: MapLibre's map; `source`: the tiles' source id; `levelFilter(level)`: the style's;
  // `Grid`: the viewer's collision grid of placed boxes (its map/placement.js).
  constructor(map, source, levelFilter, Grid) {
    this.map = map;
    this.Grid = Grid;
    this.source = source;
    this.levelFilter = levelFilter;
    this.level = null;
    this.fittedZoom = map.getZoom();
    this.places = null; // the shown level's named locations, read from loaded tiles
    this.nodes = new Map(); // location id -> its label element
    this.widths = new Map(); // text -> px
    this.timings = [];
    this.frame = null;
    this.layer = document.createElement("div");
    this.layer.className = "map-labels";
    map.getCanvasContainer().append(this.layer);
    this.measure = document.createElement("canvas").getContext("2d");
    this.measure.font = FONT;
    map.on("move", () => this.schedule());
    map.on("resize", () => this.schedule());
    map.on("sourcedata", (event) => {
      if (event.sourceId === source && event.tile) {
        this.places = null; // a tile came in: its places are read anew
        this.schedule();
      }
    });
  }

  // Show `level`'s names (from the next frame).
  show(level) {
    this.level = level;
    this.places = null;
    this.schedule();
  }

  schedule() {
    if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = null;
        this.place();
      });
    }
  }

  // The shown level's named locations in the loaded tiles, once each (a point near a
  // tile's edge is in its neighbours' buffers too), first named first.
  read() {
    const seen = new Map();
    const found = this.map.querySourceFeatures(this.source, {
      sourceLayer: "locations",
      filter: this.levelFilter(this.level),
    });
    for (const feature of found) {
      const { id, name, rank } = feature.properties;
      const text = String(name ?? "").trim();
      if (!text || seen.has(String(id)) || feature.geometry.type !== "Point") {
        continue;
      }
      seen.set(String(id), { id: String(id), text, rank: Number(rank ?? QUIET),
        at: feature.geometry.coordinates }); // prettier-ignore
    }
    return [...seen.values()].sort((a, b) => a.rank - b.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  width(text) {
    let width = this.widths.get(text);
    if (width === undefined) {
      width = this.measure.measureText(text).width;
      this.widths.set(text, width);
    }
    return width;
  }

  // Each label where it is free (module comment); the others hidden.
  place() {
    if (this.level === null) {
      return;
    }
    const started = performance.now();
    this.places ??= this.read();
    const canvas = this.map.getCanvas();
    const [w, h] = [canvas.clientWidth, canvas.clientHeight];
    const quiet = this.map.getZoom() >= this.fittedZoom + QUIET_ZOOM;
    const grid = new this.Grid();
    const points = [];
    for (const place of this.places) {
      const p = this.map.project(place.at);
      if (p.x >= 0 && p.x <= w && p.y >= 0 && p.y <= h) {
        points.push({ place, x: p.x, y: p.y });
        grid.add({ left: p.x - DOT_PX, top: p.y - DOT_PX, right: p.x + DOT_PX, bottom: p.y + DOT_PX });
      }
    }
    const shown = new Set();
    for (const { place, x, y } of points) {
      if (place.rank >= QUIET && !quiet) {
        continue;
      }
      const width = this.width(place.text);
      for (const side of SIDES) {
        const box = sideBox(x, y, width, side);
        if (box.left >= 0 && box.right <= w && box.top >= 0 && box.bottom <= h && !grid.hits(box)) {
          grid.add(box);
          this.draw(place, box, side);
          shown.add(place.id);
          break;
        }
      }
    }
    for (const [id, node] of this.nodes) {
      if (!shown.has(id)) {
        node.hidden = true;
      }
    }
    this.timings.push(performance.now() - started);
    if (this.timings.length > TIMINGS) {
      this.timings.shift();
    }
  }

  draw(place, box, side) {
    let node = this.nodes.get(place.id);
    if (!node) {
      node = document.createElement("span");
      node.className = "map-label";
      node.dataset.locationId = place.id;
      node.dataset.rank = String(place.rank);
      node.dir = "auto"; // a name written right to left reads so
      node.textContent = place.text;
      this.layer.append(node);
      this.nodes.set(place.id, node);
    }
    node.hidden = false;
    node.dataset.side = side;
    node.style.transform = `translate(${box.x.toFixed(1)}px, ${box.y.toFixed(1)}px)`;
  }
}
