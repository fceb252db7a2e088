// Colour units by an attribute group: each attribute a colour, units without one grey.
// The colours follow the group's changes live (live.js), unit by unit.

import { attributeColours, NONE, swatch } from "./colours.js";
import { byId, clear, h, named } from "../dom.js";
import { t } from "../i18n.js";
import { Live } from "./live.js";
import { refreshUnitAttributes } from "./unit-panel.js";

export async function buildLegend(app) {
  const select = byId("legend-group");
  const groups = await app.attributes.loadGroups();
  if (groups instanceof Error) {
    select.disabled = true;
    select.replaceChildren(h("option", { value: "" }, t("legend.unavailable")));
    return;
  }
  for (const group of groups) {
    select.append(h("option", { value: group.groupId, dir: "auto" }, group.groupName));
  }
  const changed = (groupId, byUnit, unitId) => {
    recolourUnit(app, groupId, byUnit, unitId);
    refreshUnitAttributes(app, unitId);
  };
  app.live = new Live(app, changed, () => colourUnits(app));
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

// The shown group's colouring: what a change needs to recolour one unit and the counts.
let shown = null;

// Colour a unit by the first of the group's attributes it holds; that attribute's id ("": none).
function paintUnit(unit, byUnit) {
  const ids = byUnit.get(unit.id) || [];
  const first = shown.group.attributes.find((a) => ids.includes(a.attributeId));
  const id = first ? first.attributeId : "";
  unit.node.classList.add("coloured");
  unit.node.setAttribute("fill", first ? shown.colours.get(id) : NONE);
  unit.node.setAttribute("data-attribute-id", id);
  return id;
}

function showCount(attributeId) {
  shown.countNodes.get(attributeId).textContent = t("legend.count", { count: shown.counts.get(attributeId) || 0 });
}

// One unit's assignments changed (live.js): its colour, and the counts it moves between.
export function recolourUnit(app, groupId, byUnit, unitId) {
  if (!shown || shown.group.groupId !== groupId || shown.byUnit !== byUnit) {
    return; // not drawn yet, or drawn from another read: that drawing shows it
  }
  for (const unit of shown.unitsById.get(unitId) || []) {
    const before = unit.node.getAttribute("data-attribute-id");
    const after = paintUnit(unit, byUnit);
    if (after !== before) {
      shown.counts.set(before, shown.counts.get(before) - 1);
      shown.counts.set(after, (shown.counts.get(after) || 0) + 1);
      showCount(before);
      showCount(after);
    }
  }
}

export async function colourUnits(app) {
  const legend = byId("legend");
  const groupId = app.view.group;
  const groups = await app.attributes.loadGroups();
  const group = groupId && !(groups instanceof Error)
    ? groups.find((candidate) => candidate.groupId === groupId)
    : null;
  if (group) {
    legend.dataset.state = "loading";
  }
  // Changes are followed from before the assignments are read: none falls between.
  await app.live.follow(group ? group.groupId : null);
  if (app.view.group !== groupId) {
    return;
  }
  const items = clear(byId("legend-items"));
  shown = null;
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
  let byUnit;
  try {
    byUnit = await app.attributes.loadAssignments(group.groupId);
  } catch (error) {
    items.append(h("li", { class: "problem" }, t("common.notAvailable", { message: error.message })));
    legend.dataset.state = "error";
    return;
  }
  if (app.view.group !== groupId) {
    return;
  }
  const colours = attributeColours(group);
  shown = { group, byUnit, colours, counts: new Map(), countNodes: new Map(), unitsById: new Map() };
  for (const unit of allUnits(app)) {
    const id = paintUnit(unit, byUnit);
    shown.counts.set(id, (shown.counts.get(id) || 0) + 1);
    shown.unitsById.set(unit.id, [...(shown.unitsById.get(unit.id) || []), unit]);
  }
  const rows = [...group.attributes.map((a) => [a.attributeId, a.attributeName]), ["", t("legend.without")]];
  for (const [attributeId, name] of rows) {
    const count = h("span", { class: "muted" });
    shown.countNodes.set(attributeId, count);
    showCount(attributeId);
    items.append(h("li", { "data-attribute-id": attributeId },
      swatch(attributeId ? colours.get(attributeId) : NONE), " ", named(name), " ", count)); // prettier-ignore
  }
  legend.dataset.groupId = groupId;
  legend.dataset.state = "ready";
}
