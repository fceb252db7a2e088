"""Root subscription fields: live changes, each behind its flag and permission.

`/graphql` serves them over WebSocket (graphql-transport-ws, and the older graphql-ws);
REST's `/v1/units/attribute-groups/{group}/units/changes` runs the same field in-process
and writes its events as Server-Sent Events (docs/api.md, "Live changes")."""

from collections.abc import AsyncIterator
from typing import Annotated

import strawberry
from strawberry.types import Info

from resolvers.attributes.changes import assignment_changes
from resolvers.auth.permissions import FLAG_UNIT_ATTRIBUTES, UNIT_ATTRIBUTES_READ
from schema.decorators import subscription
from schema.experimental_types import UnitAttributeAssignment
from schema.permissions import requires


@strawberry.type(description="One change of a group's assignments.")
class UnitAttributeAssignmentChange:
    change: str = strawberry.field(description="`assigned` or `unassigned`.")
    at: str = strawberry.field(description="When the write happened.")
    cursor: str = strawberry.field(
        description="Opaque: pass it as `after` to resume after this change."
    )
    assignment: UnitAttributeAssignment


@strawberry.type
class Subscription:
    @subscription(
        permission_classes=[requires(UNIT_ATTRIBUTES_READ, FLAG_UNIT_ATTRIBUTES)],
        description="Changes of a group's assignments whose asset the key may see, as they "
        "are written (E21, E22, the mutations, imports); from now, or after `after`. Flag "
        "`unit-attributes-resource`, permission service.unit-attributes.read.",
    )
    async def unit_attribute_assignment_changes(
        self,
        info: Info,
        group_id: strawberry.ID,
        asset_id: Annotated[
            strawberry.ID | None, strawberry.argument(description="Only of this asset.")
        ] = None,
        after: Annotated[
            str | None,
            strawberry.argument(description="A change's cursor: resume after that change."),
        ] = None,
    ) -> AsyncIterator[UnitAttributeAssignmentChange]:
        # Awaited, not a generator: the checks run when the client subscribes, so a
        # refusal is the subscription's error (REST's status) before any event.
        return await assignment_changes(info.context, group_id, asset_id, after)  # type: ignore[return-value]  # a stream of dicts: strawberry reads them by key
