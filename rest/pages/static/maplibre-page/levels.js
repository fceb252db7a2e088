// The level switcher: one button per level of tiles.json `levels`, named by its
// `level_names` (as the SVG viewer's, and the route's steps, name them), which sets the
// filter of every layer of floorgate's style to that level (docs/tiles.md, "TileJSON and
// style").

// Features on `level`, also those on several (`"0;1"` is on 0 and on 1): the filter the
// style itself carries for its default level (parsing/geo/tile_style.py `level_filter`).
export function levelFilter(level) {
  return [
    "any",
    ["==", ["get", "level"], level],
    ["in", `;${level};`, ["concat", ";", ["get", "level"], ";"]],
  ];
}

// A level's label: its name, else its number (IMDF ordinals and OSM `level` values are
// numbers as text).
export function levelLabel(level, names = {}) {
  return names[level] || `Level ${level}`;
}

// Buttons in `nav`, highest level on top as a building reads; arrow keys, Home and End move
// between them (one tab stop: roving tabindex), Enter or Space (a button's click) shows one.
export function levelButtons(nav, levels, names, onChoose) {
  nav.replaceChildren();
  const buttons = [...levels].reverse().map((level) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.level = level;
    button.textContent = names[level] || level;
    if (!names[level]) {
      button.setAttribute("aria-label", levelLabel(level));
    }
    button.setAttribute("aria-pressed", "false");
    button.tabIndex = -1;
    button.addEventListener("click", () => onChoose(level));
    nav.append(button);
    return button;
  });
  nav.addEventListener("keydown", (event) => {
    const index = buttons.indexOf(document.activeElement);
    if (index < 0) {
      return;
    }
    const moves = { ArrowUp: index - 1, ArrowLeft: index - 1, ArrowDown: index + 1,
      ArrowRight: index + 1, Home: 0, End: buttons.length - 1 };
    if (!(event.key in moves)) {
      return;
    }
    event.preventDefault();
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, moves[event.key]))];
    buttons.forEach((button) => { button.tabIndex = button === next ? 0 : -1; });
    next.focus();
  });
  return (shown) => {
    for (const button of buttons) {
      const pressed = button.dataset.level === shown;
      button.setAttribute("aria-pressed", String(pressed));
      if (pressed || !buttons.some((b) => b.dataset.level === shown)) {
        button.tabIndex = pressed ? 0 : -1;
      }
    }
  };
}
