// The colours of attribute values: the legend paints units with them (legend.js) and a
// unit's card shows the same beside each value (unit-panel.js). An attribute's colour is
// the palette's at its position in its group, so it is the same wherever it is shown.

import { s } from "../dom.js";

export const PALETTE = ["#60a5fa", "#f59e0b", "#34d399", "#f472b6", "#a78bfa", "#f87171",
  "#2dd4bf", "#facc15", "#fb923c", "#94a3b8"]; // prettier-ignore
export const NONE = "#e5e7eb"; // units without an attribute of the group

// attribute id -> colour, for every attribute of `group`.
export function attributeColours(group) {
  return new Map(group.attributes.map((a, i) => [a.attributeId, PALETTE[i % PALETTE.length]]));
}

// A small square of `colour` (decorative: the text beside it names the value).
export function swatch(colour) {
  const box = s("svg", { class: "swatch", viewBox: "0 0 10 10", "aria-hidden": "true" });
  box.append(s("rect", { width: "10", height: "10", rx: "2", fill: colour }));
  return box;
}
