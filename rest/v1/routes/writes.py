"""Unit attribute assignments (E19-E22): the groups, a group's assignments, written and
taken away, and the stream of their changes as Server-Sent Events."""

from __future__ import annotations

from resolvers.limits import MAX_WRITE_BODY_BYTES
from resolvers.validation import item_count_problems
from rest.v1.routes.params import ASSET, PAGE
from rest.v1.routes.rows import Body, Example, Param, RestRoute, Shape, path

# An event stream's resume position; the `Last-Event-ID` header, when sent, wins.
AFTER = Param("after", "after", "String")
GROUP = path("group-id", "groupId")
ASSIGNMENTS = Body(
    "data",
    "[UnitAttributeAssignmentInput!]!",
    ("application/json",),
    lambda settings: MAX_WRITE_BODY_BYTES,
    name="data",
    json=True,
    counts=item_count_problems(),
)

ASSIGNMENT = {
    "group_id": "view",
    "attribute_id": "view-pool",
    "asset_id": "harbor-view",
    "unit_id": "b1-101",
}

WRITES: tuple[RestRoute, ...] = (
    RestRoute(
        "GET",
        "/v1/units/attribute-groups",
        "listAttributeGroups",
        "List attribute groups (E19)",
        "unitAttributeGroups",
        "AttributeGroupFields",
        Shape.DATA,
        PAGE,
        example=Example(),
    ),
    RestRoute(
        "GET",
        "/v1/units/attribute-groups/{group-id}/units",
        "listAttributeAssignments",
        "List unit-to-attribute assignments of a group (E20)",
        "unitAttributeAssignments",
        "AssignmentFields",
        Shape.PAGED,
        (GROUP, *PAGE, ASSET),
        example=Example({"group-id": "view"}, {"per-page": 2}),
    ),
    RestRoute(
        "PUT",
        "/v1/units/attribute-groups/{group-id}/units",
        "assignUnitAttributes",
        "Assign attributes to units (E21)",
        "assignUnitAttributes",
        "AssignmentFields",
        Shape.DATA,
        (GROUP,),
        body=ASSIGNMENTS,
        mutation=True,
        # b1-101's view from city to pool; the next row's takes it away (the test restores it).
        example=Example({"group-id": "view"}, body={"data": [ASSIGNMENT]}),
    ),
    RestRoute(
        "PUT",
        "/v1/units/attribute-groups/{group-id}/units/remove",
        "unassignUnitAttributes",
        "Unassign attributes from units (E22)",
        "unassignUnitAttributes",
        "AssignmentFields",
        Shape.NO_CONTENT,
        (GROUP,),
        body=ASSIGNMENTS,
        mutation=True,
        example=Example({"group-id": "view"}, body={"data": [ASSIGNMENT]}),
    ),
    RestRoute(
        "GET",
        "/v1/units/attribute-groups/{group-id}/units/changes",
        "streamAttributeAssignmentChanges",
        "Stream a group's assignment changes as Server-Sent Events (live changes)",
        "unitAttributeAssignmentChanges",
        "AssignmentChangeFields",
        Shape.EVENTS,
        (GROUP, ASSET, AFTER),
        media_type="text/event-stream",
        example=Example({"group-id": "view"}, {"asset": "harbor-view"}),
    ),
)
