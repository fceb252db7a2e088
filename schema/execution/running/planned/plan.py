"""One REST route planned ahead of time: its root field's direct plan as data (the row's
resolver, its arguments, its access rule, the shape its answer completes to) and the
operation's cost, without anything of GraphQL.

The completer is generated from the shape on the route's first request
(`schema.execution.shapes`); a value it does not handle steps aside, and the route then
runs through GraphQL as every route not planned does
(`schema.execution.running.route`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from resolvers.limits import DEFAULT_PER_PAGE, MAX_PER_PAGE, PER_PAGE
from schema.execution.direct import STEP_ASIDE, Argument, DirectPlan, DirectRoot, Requirement
from schema.execution.shapes import Generator, Obj, Shape, with_stored_ids

NEVER = object()  # no value a resolver returns is graphql-core's Undefined


@dataclass(frozen=True)
class PlannedRoute:
    """The direct plan of a route's operation, and its cost: `cost[0]` plus `cost[1]`
    for each item of the page (`perPage`: DEFAULT_PER_PAGE when absent, between 1 and
    MAX_PER_PAGE), as `schema.execution.operation_cost` prices the document."""

    field: str
    call: Callable[..., Awaitable[Any]]
    arguments: tuple[Argument, ...]
    requirement: Requirement
    nullable: bool
    filters: tuple[int, ...] | None
    shape: Shape
    cost: tuple[int, int]
    # dataclasses.field: the `field` attribute above hides the bare name from mypy
    made: list[DirectPlan] = dataclasses.field(default_factory=list, compare=False, repr=False)

    def direct(self, key: str) -> DirectPlan:
        """The direct plan answering under response key `key` (every REST document's
        `result`), its completer generated on first use (about a millisecond)."""
        if not self.made:
            page = self.filters is not None and isinstance(self.shape, Obj)
            shape = with_stored_ids(cast(Obj, self.shape)) if page else self.shape  # page: an Obj
            complete = Generator(STEP_ASIDE, NEVER).completer(shape)
            root = DirectRoot(
                key,
                self.field,
                self.call,
                self.arguments,
                self.requirement,
                complete,
                self.nullable,
                self.filters,
                stored_ids=page,
            )
            self.made.append(DirectPlan((root,)))
        return self.made[0]

    def price(self, variables: dict[str, Any]) -> int:
        base, per_item = self.cost
        return base + per_item * page_size(variables.get(PER_PAGE))


def page_size(per_page: Any) -> int:
    """The page size a cost counts (`operation_cost`'s rule for an integer or absent
    `perPage`)."""
    if per_page is None:
        return DEFAULT_PER_PAGE
    if not isinstance(per_page, int) or isinstance(per_page, bool) or per_page < 1:
        return 1
    return min(per_page, MAX_PER_PAGE)
