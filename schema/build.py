"""The schema object both faces execute: limits on, a bounded validation cache."""

from __future__ import annotations

from collections.abc import Iterator

import strawberry
from graphql import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig
from strawberry.types.execution import ExecutionContext
from strawberry.utils.logging import StrawberryLogger

from resolvers.errors import ErrorCode, classify
from schema.execution.compiled import read_field
from schema.execution.executor import CompiledExecutor
from schema.execution.guard import DocumentCaches
from schema.execution.operation_limits import OperationLimits
from schema.execution.plans import plans_of
from schema.execution.shapes import COMPILED_CODE
from schema.language import lang
from schema.mutations import Mutation
from schema.queries import Query
from schema.scalars import SCALARS
from schema.subscriptions import Subscription
from storage.settings import Settings


class OutsideTheRunner(SchemaExtension):
    """Strawberry's own pipeline (`Schema.execute`, `subscribe`) runs nothing here: every
    operation of either face or a socket goes through `schema.execution.running.runner`,
    which owns access, price, charge and the kept answers; a call that went around it
    would skip them. (tests/schema/strawberry_pipeline.py puts the checks back as hooks,
    as a reference for the runner's answers.)"""

    def on_operation(self) -> Iterator[None]:
        raise RuntimeError("an operation ran outside floorgate's runner")
        yield  # a generator: strawberry enters it as the operation's hook


class Schema(strawberry.Schema):
    """Logs only errors that are the server's fault; client errors are answers, not incidents."""

    retry_after = 5
    caches: DocumentCaches  # the operations' parse, figures and validation (build_schema)

    def _warn_for_federation_directives(self) -> None:
        """No federation here: strawberry's check imports `strawberry.federation` and walks
        every type, about 13 ms of each start."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            if classify(error, self.retry_after).code is ErrorCode.INTERNAL:
                StrawberryLogger.error(error, execution_context)


def build_schema(settings: Settings) -> Schema:
    """The schema with its caches (`DocumentCaches`: the operations' parse, figures,
    validation and cost), for the runner; strawberry's own pipeline refused
    (`OutsideTheRunner`)."""
    limits = OperationLimits.from_settings(settings)
    caches = DocumentCaches(
        limits,
        settings.graphql_cache_mb * 1024 * 1024,
        settings.graphql_max_tokens,
        settings.graphql_max_document_bytes,
    )
    schema = Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        config=StrawberryConfig(default_resolver=read_field, scalar_map=SCALARS),
        execution_context_class=CompiledExecutor,
        extensions=[OutsideTheRunner],
        directives=[lang],
    )
    schema.caches = caches
    return schema


def cache_figures(schema: Schema) -> dict[str, dict[str, int]]:
    """The GraphQL caches of a schema, each bounded in bytes (`schema.execution.bounded`): parsed
    documents with their validations and costs, compiled plans, generated code."""
    return {
        "documents": schema.caches.figures(),
        "plans": plans_of(schema._schema).documents.figures(),
        "generated_code": COMPILED_CODE.figures(),
    }
