// Unit attributes (E19/E20: flag unit-attributes-resource, permission
// service.unit-attributes.read): the groups once, each group's assignments on first use.
// Without the flag or permission they are "not available" and nothing else fails.

import { graphql } from "../api.js";

const GROUPS = `query ViewerAttributeGroups {
  unitAttributeGroups { groupId groupName oneAttributePerUnit
    attributes { attributeId attributeName attributeKey } }
}`;

const ASSIGNMENTS = `query ViewerAssignments($group: ID!, $asset: ID, $page: Int) {
  unitAttributeAssignments(groupId: $group, assetId: $asset, page: $page, perPage: 10000) {
    paging { nextPage } data { unitId attributeId }
  }
}`;

export class Attributes {
  constructor(app) {
    this.app = app;
    this.groups = null; // promise of the groups, or of an Error when not available
    this.assignments = new Map(); // group id -> promise of Map(unit id -> [attribute id])
  }

  loadGroups() {
    if (!this.groups) {
      this.groups = graphql(this.app.key, GROUPS)
        .then((data) => data.unitAttributeGroups)
        .catch((error) => error);
    }
    return this.groups;
  }

  loadAssignments(groupId) {
    if (!this.assignments.has(groupId)) {
      this.assignments.set(groupId, this.fetchAssignments(groupId));
    }
    return this.assignments.get(groupId);
  }

  // Read the group anew on next use (its cached assignments may be stale: live.js).
  forget(groupId) {
    this.assignments.delete(groupId);
  }

  async fetchAssignments(groupId) {
    const byUnit = new Map();
    let page = 1;
    while (page) {
      const data = await graphql(this.app.key, ASSIGNMENTS, {
        group: groupId,
        asset: this.app.map.assetId,
        page,
      });
      const list = data.unitAttributeAssignments;
      for (const { unitId, attributeId } of list.data) {
        if (!byUnit.has(unitId)) {
          byUnit.set(unitId, []);
        }
        byUnit.get(unitId).push(attributeId);
      }
      page = list.paging.nextPage;
    }
    return byUnit;
  }
}
