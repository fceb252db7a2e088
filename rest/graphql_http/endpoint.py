"""`/graphql` (HTTP and WebSocket) as one ASGI app whose strawberry view
(`rest.graphql_http.view`) is made on its first request, once the schema is built
(`schema.lazy`): nothing of GraphQL is imported before a process's first answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from starlette.types import Receive, Scope, Send

from resolvers.context import Services
from schema.lazy import LazySchema

if TYPE_CHECKING:
    from rest.graphql_http.view import GraphQLView


class GraphQLEndpoint:
    """The view of `schemas`' schema, with the REST table's documents (which run in every
    persisted-query mode, docs/graphql.md)."""

    def __init__(self, schemas: LazySchema, services: Services, documents: Sequence[str]) -> None:
        self.schemas = schemas
        self.services = services
        self.documents = documents
        self.view: GraphQLView | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        view = self.view or await self.made()
        await view(scope, receive, send)

    async def made(self) -> GraphQLView:
        schema = await self.schemas.get()
        if self.view is None:
            from rest.graphql_http.view import GraphQLView

            self.view = GraphQLView(schema, self.services, self.documents)
        return self.view

    def cache_figures(self) -> dict[str, Any]:
        """The schema's caches (`schema.build.cache_figures`); none before it is built."""
        schema = self.schemas.built
        if schema is None:
            return {}
        from schema.build import cache_figures

        return cache_figures(schema)

    def persisted_figures(self) -> dict[str, Any]:
        """The persisted queries' store (`rest.graphql_http.persisted`); none before the
        first request made the view."""
        return {} if self.view is None else self.view.persisted.figures()
