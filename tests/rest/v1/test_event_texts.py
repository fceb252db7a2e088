"""A change's event text is made once per route and change, whatever the number of
streams, and the texts kept are bounded in bytes."""

from __future__ import annotations

from rest.v1.event_stream import EventTexts
from schema.execution.event_results import ENTRY_BYTES
from schema.execution.executor import CompiledExecutor
from tests.schema.test_subscription_events import SCHEMA, STREAM, change


class Counting(CompiledExecutor):
    built = 0

    def build_per_event_executor(self, payload):
        Counting.built += 1
        return super().build_per_event_executor(payload)


async def test_each_change_is_executed_once_and_the_texts_are_bounded():
    # Room for two events: each is its text, its cursor and ENTRY_BYTES beside its route.
    size = 128 + 1 + ENTRY_BYTES + len(STREAM.operation_id)
    texts = EventTexts(max_bytes=2 * size + size // 2)
    executors = [
        Counting.build(SCHEMA, STREAM.parsed, raw_variable_values={"groupId": "g"})
        for _ in range(3)  # three streams of the route
    ]
    written = [[await texts.text(STREAM, each, change(n)) for each in executors] for n in (1, 2, 3)]
    assert Counting.built == 3
    assert [len(set(per_change)) for per_change in written] == [1, 1, 1]
    assert written[0][0] == (
        b'id: 1\nevent: assigned\ndata: {"group_id":"g","attribute_id":"a","asset_id":"s",'
        b'"unit_id":"u1","at":"2026-11-25T00:00:00+00:00"}\n\n'
    )
    assert len(written[0][0]) == 128
    assert list(texts.results.kept.entries) == [
        (STREAM.operation_id, "2"),
        (STREAM.operation_id, "3"),
    ]
    assert texts.results.kept.bytes == 2 * size
    assert (texts.results.executed, texts.results.shared) == (3, 6)
