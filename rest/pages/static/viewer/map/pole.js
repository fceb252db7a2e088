// Where a label may go inside its unit: the unit's pole of inaccessibility (the inside
// point farthest from its edges: an L-shaped room's centroid may lie outside it), and
// whether a label's box around it lies inside the unit. Canvas units throughout.

// Signed distance from (x, y) to the edges of `rings` (an outline, then its holes):
// positive inside the shape (inside the outline, outside every hole).
export function edgeDistance(x, y, rings) {
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

// Whether a box of half sizes (hw, hh) around `item`'s pole ({x, y, radius, rings})
// lies inside its unit.
export function fits(item, hw, hh) {
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
