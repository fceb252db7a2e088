"""The executor of both faces: graphql-core's, except that long lists are completed in
slices with a yield to the event loop between them.

Completing 10,000 units is plain CPU work with no await in it; done in one go it holds
the loop for the whole list, so no other request is served and the request's time
budget cannot interrupt it. Between slices other requests run, and a cancelled
request stops there.
"""

from __future__ import annotations

import asyncio
from typing import Any

from graphql import GraphQLList, GraphQLOutputType, GraphQLResolveInfo
from graphql.execution.executor import FieldDetailsList
from graphql.pyutils import Path, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

SLICE = 500  # items completed between two yields to the event loop


class YieldingExecutor(StrawberryGraphQLCoreExecutionContext):
    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo,
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
        info: GraphQLResolveInfo,
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
                    completed.append(self.complete_awaitable_list_item_value(
                        item, item_type, field_details_list, info, item_path, position_context
                    ))  # fmt: skip
                    pending.append(index)
                elif self.complete_list_item_value(
                    item, completed, item_type, field_details_list, info, item_path,
                    position_context,
                ):  # fmt: skip
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
