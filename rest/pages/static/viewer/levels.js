// The level switcher: one button per Level of the document, in document order (the
// parser's order: lowest first), named by the floor level tag where the map has one.

import { byId, clear, h } from "./dom.js";

export function buildLevelSwitcher(app) {
  const nav = clear(byId("levels"));
  for (const level of app.model.levels) {
    const button = h(
      "button",
      { type: "button", "data-level-uid": level.uid, "aria-pressed": "false" },
      app.levelName(level),
    );
    button.addEventListener("click", () => app.showLevel(level.uid));
    nav.append(button);
  }
  nav.onkeydown = (event) => {
    const buttons = [...nav.querySelectorAll("button")];
    const at = buttons.indexOf(document.activeElement);
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (at >= 0 && step) {
      event.preventDefault();
      buttons[(at + step + buttons.length) % buttons.length].focus();
    }
  };
}

export function markLevel(uid) {
  for (const button of byId("levels").querySelectorAll("button")) {
    button.setAttribute("aria-pressed", String(button.dataset.levelUid === uid));
  }
}
