"""A REST route's operation, for the runner (`schema.execution.running.runner`): its persisted
document over the schema, or its plan made ahead of time
(`schema.execution.running.planned`) when it has one. The REST face only translates: the
route in, its access requirement out, its variables in, the `RouteOperation` to the
runner, the result (or `OperationFailed`) out in the route's shape.

The strategy is picked here, per request: a planned route runs on its plan before anything of
GraphQL is built; a value its plan does not handle steps aside (`StepAside`), and the
route then runs through GraphQL exactly as every route not planned does
(`schema.execution.running.route_documents`). This module imports nothing of GraphQL: a planned
route answers before graphql-core and strawberry are imported (a cold start's first
requests).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from resolvers.context import RequestContext
from resolvers.errors import ErrorCode, OperationFailed, classify_raised
from resolvers.limits import MAX_PER_PAGE, PER_PAGE
from schema.execution.direct import Requirement, StepAside, run_direct
from schema.execution.running.planned.routes import PLANS

if TYPE_CHECKING:  # not imported: a planned route runs before GraphQL is imported
    from graphql import DocumentNode, OperationDefinitionNode

log = logging.getLogger("floorgate.rest")
RESULT = "result"  # the response key of every REST document's root field


class RouteDocument(Protocol):
    """What the runner needs of a REST route (`rest.v1.routes.rows.RestRoute`)."""

    @property
    def operation_id(self) -> str: ...

    @property
    def parsed(self) -> DocumentNode: ...

    @property
    def definition(self) -> OperationDefinitionNode: ...

    @property
    def body(self) -> object | None: ...


class Documents(Protocol):
    """The routes' documents over the schema (`route_documents.RouteDocuments`)."""

    def requirement(self, route: RouteDocument) -> Requirement: ...

    def cost(self, route: RouteDocument, variables: dict[str, Any]) -> int: ...

    async def execute(
        self, route: RouteDocument, variables: dict[str, Any], context: RequestContext
    ) -> Any: ...


class RouteOperation:
    """One request of a route (`Priced`): its access requirement, then (its variables
    read) its plan's or its document's price, execution and answered cost."""

    def __init__(
        self,
        route: RouteDocument,
        documents: Callable[[], Awaitable[Documents]],
        context: RequestContext,
    ) -> None:
        self.route = route
        self.plan = PLANS.get(route.operation_id)
        self.documents = documents  # built on first need: a planned route needs none
        self.context = context
        self.variables: dict[str, Any] = {}  # the face's, once access is granted
        self.built: Documents | None = None
        self.result: Any = None

    async def requirement(self) -> Requirement:
        """The permission and flag the route's root field demands, known before its body
        is read or its variables checked: from its plan, else from the schema."""
        if self.plan is not None:
            return self.plan.requirement
        self.built = await self.documents()
        return self.built.requirement(self.route)

    async def price(self) -> int:
        if self.plan is not None:
            return self.plan.price(self.variables)
        self.built = await self.documents()
        return self.built.cost(self.route, self.variables)

    async def execute(self) -> Any:
        """The route's result (`data.result`): on its plan, else (or when the plan steps
        aside) through GraphQL. Raises OperationFailed with the operation's first error."""
        if self.plan is not None:
            try:
                outcome = await run_direct(self.plan.direct(RESULT), self.context, self.variables)
            except StepAside:
                pass  # graphql-core answers it, exactly
            else:
                if not outcome.failures:
                    assert outcome.data is not None
                    self.result = outcome.data[RESULT]
                    return self.result
                raised = outcome.failures[0][1]
                retry_after = self.context.settings.retry_after_seconds
                error = classify_raised(raised, retry_after)
                if error.code is ErrorCode.INTERNAL:
                    log.error("request failed: %s", raised, exc_info=raised)
                raise OperationFailed(error, outcome.data is None)
        self.built = await self.documents()
        self.result = await self.built.execute(self.route, self.variables, self.context)
        return self.result

    def answered(self, content: bytes) -> int | None:
        """What the answer cost when its page came out shorter than the `per-page` it was
        priced at: the cost of a page of the items it holds (at least one). None when it
        cost what was charged. `/v1/maps?per-page=10000` answering 12 maps is one unit,
        not 13."""
        per_page = self.variables.get(PER_PAGE)
        result = self.result
        items = result.get("data") if isinstance(result, dict) else result
        if self.route.body is not None or per_page is None or not isinstance(items, list):
            return None
        if len(items) >= min(per_page, MAX_PER_PAGE):
            return None
        fewer = {**self.variables, PER_PAGE: max(1, len(items))}
        if self.plan is not None:
            return self.plan.price(fewer)
        assert self.built is not None  # priced through them
        return self.built.cost(self.route, fewer)
