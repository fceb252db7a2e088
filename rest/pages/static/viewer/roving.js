// Roving tabindex (the WAI-ARIA pattern): a group of items is one tab stop, the arrow
// keys move between its items and Home/End to its ends. The item focused last keeps the
// stop, so Tab leaves the group and Shift+Tab comes back to where the user was. A map of
// 200 units, a list of 300 locations: one stop each, instead of hundreds.

const LINE_KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
const ROW_KEYS = { ArrowDown: 1, ArrowUp: -1 };
const COLUMN_KEYS = { ArrowRight: 1, ArrowLeft: -1 };

function itemsOf(container, selector) {
  return [...container.querySelectorAll(selector)];
}

// Make `item` (or, without one, the current stop or the first item) the group's stop.
export function restop(container, selector, item = null) {
  const items = itemsOf(container, selector);
  const stop =
    (item && items.includes(item) && item) ||
    items.find((candidate) => candidate.getAttribute("tabindex") === "0") ||
    items[0];
  for (const other of items) {
    other.setAttribute("tabindex", other === stop ? "0" : "-1");
  }
  return stop || null;
}

function lineStep(items, at, key) {
  if (key === "Home") {
    return items[0];
  }
  if (key === "End") {
    return items[items.length - 1];
  }
  const step = LINE_KEYS[key];
  return step ? items[(at + step + items.length) % items.length] : null;
}

// Rows of a grid (`rowSelector` inside the container, items inside rows): up and down
// keep the column, left and right move within the row.
function gridStep(container, rowSelector, selector, item, key) {
  const row = item.closest(rowSelector);
  const cells = itemsOf(row, selector);
  const column = cells.indexOf(item);
  if (COLUMN_KEYS[key]) {
    return cells[column + COLUMN_KEYS[key]] || null;
  }
  const rows = itemsOf(container, rowSelector).filter((r) => r.querySelector(selector));
  const target =
    key === "Home" ? rows[0] : key === "End" ? rows[rows.length - 1] : rows[rows.indexOf(row) + (ROW_KEYS[key] || 0)];
  if (!target || (target === row && !(key === "Home" || key === "End"))) {
    return null;
  }
  const targetCells = itemsOf(target, selector);
  return targetCells[Math.min(column, targetCells.length - 1)] || null;
}

// Wire `container`: its items (matching `selector`) become one tab stop. With
// `rowSelector`, the items form a grid of rows.
export function rove(container, selector, rowSelector = null) {
  container.addEventListener("focusin", (event) => {
    const item = event.target.closest && event.target.closest(selector);
    if (item && container.contains(item)) {
      restop(container, selector, item);
    }
  });
  container.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    const item = event.target.closest && event.target.closest(selector);
    if (!item || !container.contains(item)) {
      return;
    }
    const items = itemsOf(container, selector);
    const next = rowSelector
      ? gridStep(container, rowSelector, selector, item, event.key)
      : lineStep(items, items.indexOf(item), event.key);
    if (next) {
      event.preventDefault();
      next.focus();
    }
  });
  restop(container, selector);
}
