// The panel of a selected unit: name, floor (the floor's name, app.floorName), attributes
// by group with each value's colour (the legend's: colours.js) and references, each read
// from the API; what the key may not read says "not available". Its "Directions from
// here" and "to here" buttons are wired in main.js.

import { graphql } from "../api.js";
import { attributeColours, swatch } from "./colours.js";
import { byId, clear, h, named, show } from "../dom.js";
import { t } from "../i18n.js";

const REFERENCES = `query ViewerUnitReferences($id: ID!) {
  unit(id: $id) { id references { key value } }
}`;

function notAvailable(error) {
  return h("p", { class: "muted", "data-available": "false" }, t("common.notAvailable", { message: error.message }));
}

async function attributesOf(app, unitId) {
  const groups = await app.attributes.loadGroups();
  if (groups instanceof Error) {
    return notAvailable(groups);
  }
  const list = h("dl", { class: "attributes" });
  for (const group of groups) {
    let byUnit;
    try {
      byUnit = await app.attributes.loadAssignments(group.groupId);
    } catch (error) {
      return notAvailable(error);
    }
    const ids = byUnit.get(unitId) || [];
    const colours = attributeColours(group);
    const held = group.attributes.filter((attribute) => ids.includes(attribute.attributeId));
    const dd = h("dd", { "data-group-id": group.groupId, "data-attribute-ids": ids.join(" ") });
    held.forEach((attribute, index) => {
      const colour = colours.get(attribute.attributeId);
      const comma = index < held.length - 1 ? "," : "";
      dd.append(
        index ? " " : "",
        h("span", { class: "attribute-value", "data-attribute-id": attribute.attributeId,
          "data-colour": colour }, swatch(colour), named(attribute.attributeName), comma), // prettier-ignore
      );
    });
    if (!held.length) {
      dd.append(t("unit.none"));
    }
    list.append(h("dt", { "data-group-id": group.groupId, dir: "auto" }, group.groupName), dd);
  }
  return groups.length ? list : h("p", { class: "muted" }, t("unit.noGroups"));
}

async function referencesOf(app, unitId) {
  let unit;
  try {
    unit = (await graphql(app.key, REFERENCES, { id: unitId })).unit;
  } catch (error) {
    return notAvailable(error);
  }
  if (!unit || !unit.references.length) {
    return h("p", { class: "muted" }, unit ? t("unit.none") : t("unit.notFound"));
  }
  return h(
    "ul",
    { class: "references" },
    ...unit.references.map((reference) =>
      h(
        "li",
        { "data-key": reference.key, "data-value": reference.value },
        h("span", { class: "key" }, reference.key),
        ": ",
        reference.value,
      ),
    ),
  );
}

export async function openUnitPanel(app, unitId) {
  const panel = byId("unit-panel");
  const unit = app.unitsById.get(unitId);
  const drawn = app.model.units.get(unitId);
  panel.dataset.unitId = unitId;
  panel.dataset.state = "loading";
  byId("unit-name").textContent = unit ? unit.name : unitId;
  byId("unit-id").textContent = unitId;
  byId("unit-floor").textContent = unit
    ? app.floorName(unit.floorId)
    : drawn
      ? app.levelName(drawn.level)
      : "";
  const attributes = clear(byId("unit-attributes"));
  const references = clear(byId("unit-references"));
  attributes.append(h("p", { class: "muted" }, t("status.loading")));
  references.append(h("p", { class: "muted" }, t("status.loading")));
  show(panel, true);
  const [attributeList, referenceList] = await Promise.all([
    attributesOf(app, unitId),
    referencesOf(app, unitId),
  ]);
  if (panel.dataset.unitId !== unitId) {
    return; // another unit was chosen meanwhile
  }
  attributes.replaceChildren(attributeList);
  references.replaceChildren(referenceList);
  panel.dataset.state = "ready";
}

// The open panel's attributes read again, if it shows this unit (a live change: live.js).
export async function refreshUnitAttributes(app, unitId) {
  const panel = byId("unit-panel");
  if (panel.hidden || panel.dataset.unitId !== unitId || panel.dataset.state !== "ready") {
    return;
  }
  const list = await attributesOf(app, unitId);
  if (panel.dataset.unitId === unitId) {
    byId("unit-attributes").replaceChildren(list);
  }
}

export function closeUnitPanel() {
  const panel = byId("unit-panel");
  delete panel.dataset.unitId;
  panel.dataset.state = "closed";
  show(panel, false);
}
