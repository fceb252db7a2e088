"""The schema object both faces execute: limits on, a bounded validation cache."""

from __future__ import annotations

from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.types.execution import ExecutionContext
from strawberry.utils.logging import StrawberryLogger

from resolvers.errors import ErrorCode, classify
from schema.mutations import Mutation
from schema.queries import Query
from schema.scalars import SCALARS
from storage.settings import Settings


def read_field(source: Any, name: str) -> Any:
    """Plain fields read stored dicts directly; other sources by attribute."""
    if type(source) is dict:
        return source.get(name)
    return getattr(source, name)


class Schema(strawberry.Schema):
    """Logs only errors that are the server's fault; client errors are answers, not incidents."""

    retry_after = 5

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            if classify(error, self.retry_after).code is ErrorCode.INTERNAL:
                StrawberryLogger.error(error, execution_context)


def build_schema(settings: Settings) -> strawberry.Schema:
    return Schema(
        query=Query,
        mutation=Mutation,
        config=StrawberryConfig(default_resolver=read_field, scalar_map=SCALARS),
        extensions=[
            lambda: QueryDepthLimiter(max_depth=settings.graphql_max_depth),
            lambda: MaxAliasesLimiter(max_alias_count=settings.graphql_max_aliases),
            lambda: MaxTokensLimiter(max_token_count=settings.graphql_max_tokens),
            lambda: ValidationCache(maxsize=settings.graphql_validation_cache),
        ],
    )
