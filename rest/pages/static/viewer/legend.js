// Colour units by an attribute group: each attribute a colour, units without one grey.

import { byId, clear, h, s } from "./dom.js";

const PALETTE = ["#60a5fa", "#f59e0b", "#34d399", "#f472b6", "#a78bfa", "#f87171",
  "#2dd4bf", "#facc15", "#fb923c", "#94a3b8"]; // prettier-ignore
const NONE = "#e5e7eb";

function swatch(colour) {
  const box = s("svg", { class: "swatch", viewBox: "0 0 10 10", "aria-hidden": "true" });
  box.append(s("rect", { width: "10", height: "10", rx: "2", fill: colour }));
  return box;
}

export async function buildLegend(app) {
  const select = byId("legend-group");
  const groups = await app.attributes.loadGroups();
  if (groups instanceof Error) {
    select.disabled = true;
    select.replaceChildren(h("option", { value: "" }, "not available"));
    return;
  }
  for (const group of groups) {
    select.append(h("option", { value: group.groupId }, group.groupName));
  }
  select.value = groups.some((group) => group.groupId === app.view.group) ? app.view.group : "";
  select.onchange = () => {
    app.view.group = select.value || null;
    app.save();
    colourUnits(app);
  };
  await colourUnits(app);
}

function allUnits(app) {
  return app.model.levels.flatMap((level) => level.units);
}

export async function colourUnits(app) {
  const items = clear(byId("legend-items"));
  const legend = byId("legend");
  const groupId = app.view.group;
  const groups = await app.attributes.loadGroups();
  const group = groupId && !(groups instanceof Error)
    ? groups.find((candidate) => candidate.groupId === groupId)
    : null;
  if (!group) {
    for (const unit of allUnits(app)) {
      unit.node.classList.remove("coloured");
      unit.node.removeAttribute("data-attribute-id");
      if (unit.fill) {
        unit.node.setAttribute("fill", unit.fill);
      } else {
        unit.node.removeAttribute("fill");
      }
    }
    delete legend.dataset.groupId;
    return;
  }
  legend.dataset.state = "loading";
  let byUnit;
  try {
    byUnit = await app.attributes.loadAssignments(group.groupId);
  } catch (error) {
    items.append(h("li", { class: "problem" }, `Not available (${error.message})`));
    legend.dataset.state = "error";
    return;
  }
  if (app.view.group !== groupId) {
    return;
  }
  const colours = new Map(group.attributes.map((a, i) => [a.attributeId, PALETTE[i % PALETTE.length]]));
  const counts = new Map();
  for (const unit of allUnits(app)) {
    const first = group.attributes.find((a) => (byUnit.get(unit.id) || []).includes(a.attributeId));
    const id = first ? first.attributeId : "";
    counts.set(id, (counts.get(id) || 0) + 1);
    unit.node.classList.add("coloured");
    unit.node.setAttribute("fill", first ? colours.get(id) : NONE);
    unit.node.setAttribute("data-attribute-id", id);
  }
  for (const attribute of group.attributes) {
    items.append(h("li", { "data-attribute-id": attribute.attributeId },
      swatch(colours.get(attribute.attributeId)), ` ${attribute.attributeName} `,
      h("span", { class: "muted" }, `(${counts.get(attribute.attributeId) || 0})`))); // prettier-ignore
  }
  items.append(h("li", { "data-attribute-id": "" }, swatch(NONE), " none ",
    h("span", { class: "muted" }, `(${counts.get("") || 0})`))); // prettier-ignore
  legend.dataset.groupId = groupId;
  legend.dataset.state = "ready";
}
