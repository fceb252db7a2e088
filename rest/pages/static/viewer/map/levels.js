// The level switcher: one button per level, in floor order (main.js orderLevels), named
// as app.levelName names it (the asset's floor name from E3 first).

import { byId, clear, h } from "../dom.js";
import { restop, rove } from "../roving.js";

export function buildLevelSwitcher(app) {
  const nav = clear(byId("levels"));
  if (!nav.dataset.roving) {
    nav.dataset.roving = "yes"; // one tab stop, arrows between the levels
    rove(nav, "button");
  }
  for (const level of app.model.levels) {
    const button = h(
      "button",
      { type: "button", "data-level-uid": level.uid, "aria-pressed": "false", dir: "auto" },
      app.levelName(level),
    );
    button.addEventListener("click", () => app.showLevel(level.uid));
    nav.append(button);
  }
  restop(nav, "button", nav.querySelector(`[data-level-uid="${CSS.escape(app.view.level || "")}"]`));
}

export function markLevel(uid) {
  for (const button of byId("levels").querySelectorAll("button")) {
    button.setAttribute("aria-pressed", String(button.dataset.levelUid === uid));
  }
}
