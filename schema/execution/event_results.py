"""A subscription's result for one event, executed once per process for every subscriber
who would get the same answer (issue 45, point 8).

graphql-core executes a subscription's selection for each event and each subscriber
(`execute_subscription_event`): with 100 subscriptions of one key, writing 2,400 changes
took 42.5 s instead of 4.4 s, the event loop busy executing the same selection on the
same change 100 times. What an event's result depends on is the event, the document and
operation, the variables and who asks (its permissions, assets and flags decide what a
field may answer): subscribers alike in all of these share one `share` key (`share_key`)
and one execution per event. The first subscriber that meets the event executes it and
renders it as its face writes it (the `payload` of a WebSocket's `next`, a REST event
stream's event); the result is kept for the others, the latest ones within
EVENT_RESULT_BYTES, keys included. Both faces use it: `rest/v1/event_stream.py` and
`rest/graphql_http/ws_subscriptions.py`.

Events are told apart by their cursor (the subscription field's `cursor`, a number of
the events log), which every event of `unitAttributeAssignmentChanges` carries.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from inspect import isawaitable
from typing import Any

import orjson
from graphql import ExecutionResult
from graphql.execution.execute import execute_subscription_event

from resolvers.auth.keys import Caller
from resolvers.limits import EVENT_RESULT_BYTES
from schema.execution.bounded import ByteLRU
from schema.execution.executor import CompiledExecutor
from storage.cache.read_cache import kept_key

ENTRY_BYTES = 200  # an entry's own objects beyond its bytes and key (a rough figure)

Render = Callable[[ExecutionResult], bytes | None]


def share_key(
    query: str, operation_name: str | None, variables: Any, caller: Caller, flags: frozenset[str]
) -> bytes | None:
    """What decides a subscriber's results, as a digest: its document and operation, its
    variables, its key's permissions and assets and its flags. None when the variables
    cannot be written canonically (nested too deep): such a subscriber executes each
    event on its own."""
    try:
        return kept_key(query, operation_name, variables, caller.permissions, caller.assets, flags)
    except (orjson.JSONEncodeError, TypeError):
        return None


class EventResults:
    """Each (share, event)'s rendered result, made by the first subscriber that meets it."""

    def __init__(self, max_bytes: int = EVENT_RESULT_BYTES) -> None:
        self.kept: ByteLRU[tuple[Hashable, str], bytes] = ByteLRU(max_bytes)
        self.executed = 0  # events executed (not found kept): /readyz, tests
        self.shared = 0  # results found kept

    async def result(
        self,
        share: Hashable | None,
        executor: CompiledExecutor,
        event: dict[str, Any],
        render: Render,
    ) -> bytes | None:
        """The rendered result of `event` for the subscribers of `share` (None: of this
        subscriber alone); None when `render` gives none (nothing is kept then)."""
        key = (share, str(event["cursor"]))
        if share is not None:
            found = self.kept.get(key)
            if found is not None:
                self.shared += 1
                return found
        result = execute_subscription_event(executor.build_per_event_executor(event))
        if isawaitable(result):
            result = await result
        self.executed += 1
        rendered = render(result)
        if rendered is not None and share is not None:
            size = len(rendered) + len(key[1]) + ENTRY_BYTES + len(str(share))
            self.kept.put(key, rendered, size)
        return rendered

    def figures(self) -> dict[str, int]:
        return {**self.kept.figures(), "executed": self.executed, "shared": self.shared}
