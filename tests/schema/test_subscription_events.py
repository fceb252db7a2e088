"""Each event of a subscription runs on an executor of its own: graphql-core 3.3.2 shares
a cache between the per-event copies that grew by every event for as long as the
subscription lasted (2.8 KiB per event per subscription)."""

from __future__ import annotations

from graphql.execution.execute import execute_subscription_event

from rest.v1.routes import ROUTES
from rest.v1.routes.rows import Shape
from schema.build import build_schema
from schema.execution.executor import CompiledExecutor
from storage.settings import Settings

SCHEMA = build_schema(Settings())._schema
STREAM = next(route for route in ROUTES if route.shape is Shape.EVENTS)


def change(number: int) -> dict[str, object]:
    assignment = {"group_id": "g", "attribute_id": "a", "asset_id": "s", "unit_id": f"u{number}"}
    return {
        "change": "assigned",
        "at": "2026-11-25T00:00:00+00:00",
        "cursor": str(number),
        "assignment": assignment,
    }


def test_events_leave_nothing_behind_in_the_subscriptions_executor():
    executor = CompiledExecutor.build(SCHEMA, STREAM.parsed, raw_variable_values={"groupId": "g"})
    assert isinstance(executor, CompiledExecutor)
    results = [
        execute_subscription_event(executor.build_per_event_executor(change(number)))
        for number in range(200)
    ]
    assert results[199].data == {
        "result": {
            "change": "assigned",
            "cursor": "199",
            "at": "2026-11-25T00:00:00+00:00",
            "assignment": {
                "group_id": "g",
                "attribute_id": "a",
                "asset_id": "s",
                "unit_id": "u199",
            },
        }
    }
    assert executor._relevant_sub_fields == {}
