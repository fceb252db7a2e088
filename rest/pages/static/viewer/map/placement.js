// Where a label goes on screen, like a street map's places of interest: inside its unit
// when it fits there, else beside a small marker (a dot, an icon, the route's A or B) on
// the first free side, else nowhere until the view is zoomed in. Everything here is in
// CSS pixels of the map (canvas units over `upp`), boxes are {left, top, right, bottom},
// and nothing reads the page's layout: text widths are measured once (labels.js).

export const FONT_PX = 12; // label text size on screen (viewer.css: .unit-labels text)
export const LINE_PX = FONT_PX * 1.3; // the box a line of text takes
export const GAP_PX = 2; // space kept between two labels, or a label and a marker
export const DOT_RADIUS = 3; // the marker of a label drawn beside it
const CELL_PX = 48; // collision grid cell

// The sides a label may take beside its marker, in the order they are tried: right and
// left (text reads on from the marker, as on street maps), then below and above.
export const SIDES = ["right", "left", "below", "above"];

// A grid of the boxes placed so far, to find a collision in a few cells.
export class Grid {
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
    for (const key of this.keys(box)) {
      for (const other of this.cells.get(key) || []) {
        if (box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom) {
          return true;
        }
      }
    }
    return false;
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

// The box of a disc of `radius` px around screen point (sx, sy), with the gap.
export function discBox(sx, sy, radius) {
  const r = radius + GAP_PX / 2;
  return { left: sx - r, top: sy - r, right: sx + r, bottom: sy + r };
}

// The box of a label `width` px wide centred on (sx, sy), with the gap.
export function centredBox(sx, sy, width) {
  const hw = (width + GAP_PX) / 2;
  const hh = (LINE_PX + GAP_PX) / 2;
  return { left: sx - hw, top: sy - hh, right: sx + hw, bottom: sy + hh };
}

// Where the text goes on `side` of a marker of `radius` px: its offset from the marker's
// centre (px) and its text-anchor.
export function sideOffset(side, radius) {
  const away = radius + 3;
  if (side === "right") {
    return { dx: away, dy: 0, anchor: "start" };
  }
  if (side === "left") {
    return { dx: -away, dy: 0, anchor: "end" };
  }
  const dy = radius + 2 + LINE_PX / 2;
  return { dx: 0, dy: side === "below" ? dy : -dy, anchor: "middle" };
}

// The box of a label `width` px wide on `side` of a marker of `radius` at (sx, sy).
export function sideBox(sx, sy, width, side, radius) {
  const { dx, dy, anchor } = sideOffset(side, radius);
  const x = sx + dx;
  const left = anchor === "start" ? x : anchor === "end" ? x - width : x - width / 2;
  const top = sy + dy - LINE_PX / 2;
  const g = GAP_PX / 2;
  return { left: left - g, top: top - g, right: left + width + g, bottom: top + LINE_PX + g };
}

// The first side of the marker at (sx, sy) where a label `width` px wide meets nothing in
// `grid` and stays within `seen` (the map's box); null when none is free.
export function freeSide(grid, sx, sy, width, radius, seen) {
  for (const side of SIDES) {
    const box = sideBox(sx, sy, width, side, radius);
    const within = box.left >= seen.left && box.right <= seen.right && box.top >= seen.top && box.bottom <= seen.bottom;
    if (within && !grid.hits(box)) {
      return { side, box };
    }
  }
  return null;
}
