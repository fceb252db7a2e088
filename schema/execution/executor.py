"""The executor of both faces: graphql-core's, with two changes.

`YieldingExecutor` completes long lists in slices with a yield to the event loop
between them. `CompiledExecutor` runs a compiled plan (`schema.execution.compiled`) where it has
one: fields collected once per document, plain subtrees completed by generated code.

Completing 10,000 units is plain CPU work with no await in it; done in one go it holds
the loop for the whole list, so no other request is served and the request's time
budget cannot interrupt it. Between slices other requests run, and a cancelled
request stops there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Self, cast

from graphql import (
    GraphQLError,
    GraphQLList,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
)
from graphql.execution.collect_fields import (
    CollectedFields,
    DeferUsage,
    FieldDetailsList,
    GroupedFieldSet,
)
from graphql.pyutils import AwaitableOrValue, Path, RefMap, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from schema.execution.compiled import Plan
from schema.execution.plans import plans_of
from schema.execution.shapes import Completer

SLICE = 500  # items completed between two yields to the event loop


class YieldingExecutor(StrawberryGraphQLCoreExecutionContext):
    # Whether a query may run on its direct plan instead (`schema.execution.direct_plans`):
    # graphql-core's own executor (this class) never does, so tests compare against it.
    runs_direct_plans = False

    def build_per_event_executor(self, payload: Any) -> Any:
        """A subscription event's executor with caches of its own. graphql-core 3.3.2
        copies the subscription's executor per event and shares its cache of sub-field
        collections, keyed by the id of each event's new field lists: it kept 2.8 KiB per
        event per open subscription until the subscription ended."""
        executor = super().build_per_event_executor(payload)
        executor._relevant_sub_fields = {}
        executor._stream_usages = RefMap()
        return executor

    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        if (
            type(result) is not list
            or len(result) <= SLICE
            or self.get_stream_usage(field_details_list, path) is not None
        ):
            return super().complete_list_value(
                return_type, field_details_list, info, path, result, position_context
            )
        return self._complete_in_slices(
            return_type.of_type, field_details_list, info, path, result, position_context
        )

    async def _complete_in_slices(
        self,
        item_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        items: list[Any],
        position_context: Any,
    ) -> list[Any]:
        """graphql-core's `complete_iterable_value` (without streams), yielding every SLICE."""
        completed: list[Any] = []
        pending: list[int] = []
        try:
            for index, item in enumerate(items):
                if index and index % SLICE == 0:
                    await asyncio.sleep(0)
                item_path = path.add_key(index, None)
                if self.is_awaitable(item):
                    completed.append(
                        self.complete_awaitable_list_item_value(
                            item, item_type, field_details_list, info, item_path, position_context
                        )
                    )
                    pending.append(index)
                elif self.complete_list_item_value(
                    item,
                    completed,
                    item_type,
                    field_details_list,
                    info,
                    item_path,
                    position_context,
                ):
                    pending.append(index)
        except asyncio.CancelledError:  # the request is gone: start nothing more
            for index in pending:
                completed[index].close()
            raise
        except Exception:
            if pending:
                self.settle_in_background([completed[index] for index in pending])
            raise
        if pending:
            values = await gather_with_cancel(*(completed[index] for index in pending))
            for index, value in zip(pending, values, strict=True):
                completed[index] = value
        return completed


class CompiledExecutor(YieldingExecutor):
    """graphql-core's executor reading a plan: the plan's collected fields replace
    graphql-core's collection, and a plain field's value is completed by the plan's
    completer, or by graphql-core again when the completer gives up (`Slow`). Fields with
    resolvers (and their permission classes, DataLoaders, errors) run as graphql-core
    runs them, in the same order."""

    plan: Plan | None = None
    runs_direct_plans = True

    @classmethod
    def build(cls, *args: Any, **kwargs: Any) -> list[GraphQLError] | Self:
        """graphql-core's `build`, typed as what it makes: `cls(...)`, or the errors of
        variables that do not coerce (its own annotation says the base class)."""
        return cast("list[GraphQLError] | Self", super().build(*args, **kwargs))

    def execute_operation(self, serially: bool | None = None) -> Any:
        middleware = self.middleware_manager
        if middleware is None or middleware._middleware_resolvers is None:
            self.plan = plans_of(self.schema).get(
                self.schema,
                self.operation,
                self.fragments,
                self.variable_values,
                self.hide_suggestions,
            )
        return super().execute_operation(serially)

    def execute_collected_root_fields(
        self,
        root_type: GraphQLObjectType,
        root_value: Any,
        grouped_field_set: GroupedFieldSet,
        serially: bool,
        new_defer_usages: Sequence[DeferUsage],
    ) -> AwaitableOrValue[dict[str, Any]]:
        if self.plan is not None:
            grouped_field_set = self.plan.root.grouped_field_set
        return super().execute_collected_root_fields(
            root_type, root_value, grouped_field_set, serially, new_defer_usages
        )

    def collect_subfields(
        self, return_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> CollectedFields:
        plan = self.plan
        if plan is not None:
            found = plan.subfields.get((return_type, id(field_details_list)))
            if found is not None:
                return found
        return super().collect_subfields(return_type, field_details_list)

    def complete_value(
        self,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        plan = self.plan
        fast = plan.completions.get(id(field_details_list)) if plan is not None else None
        if fast is not None and fast.field_type is return_type:
            if fast.is_list and type(result) is list and len(result) > SLICE:
                return self._complete_plain_slices(
                    fast.complete, return_type, field_details_list, info, path, result
                )
            try:
                return fast.complete(result)
            except Exception:  # graphql-core completes it again, exactly
                pass
        return super().complete_value(
            return_type, field_details_list, info, path, result, position_context
        )

    async def _complete_plain_slices(
        self,
        complete_list: Completer,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        items: list[Any],
    ) -> Any:
        """A long plain list, SLICE items at a time with a yield between; on any surprise
        graphql-core completes the whole list again (it runs no resolver)."""
        completed: list[Any] = []
        try:
            for start in range(0, len(items), SLICE):
                if start:
                    await asyncio.sleep(0)
                completed.extend(complete_list(items[start : start + SLICE]))
            return completed
        except Exception:  # graphql-core completes it again, exactly (below, so that its
            pass  # own error does not carry the completer's frames as its context)
        value = super().complete_value(return_type, field_details_list, info, path, items, None)
        return await value if self.is_awaitable(value) else value
