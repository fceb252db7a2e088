"""Input conversion of E18 (50 waypoints) and of an E21 body (10,000 assignments).

No database, no HTTP: each step of what happens to the input of one request, timed
alone on the real schema, in the same run:

- strawberry: the resolver's arguments from graphql-core's coerced value
  (`convert_arguments`) and `as_record`, with the record inputs (`schema.records.
  record_input`, what runs) and with strawberry's generic conversion (the hook off,
  what ran before);
- graphql-core: the coercion of the variable (`coerce_input_value`), which execution
  does for every request;
- REST body: `camelized` and `input_problems` (`rest/v1/json_body.py`) of the JSON member.

The goal of issue 15: converting 50 waypoints under 0.2 ms.

Run with `make bench` or `python -m tests.benchmarks e18_input`.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from graphql.language import parse_type
from graphql.utilities import coerce_input_value, type_from_ast, validate_input_value
from strawberry.types.arguments import convert_arguments

from rest.v1.json_body import input_problems
from rest.v1.names import camelized
from schema.build import build_schema
from schema.experimental_types import DistanceMatrixInput, UnitAttributeAssignmentInput
from schema.records import as_record
from storage.settings import Settings
from tests.benchmarks.harness.report import machine

GOAL_MS = 0.2
BLOCKS = 30  # timed blocks per measurement; the median block is reported


def waypoint(n: int) -> dict[str, Any]:
    """A waypoint with every field, in REST's words (the most there is to convert)."""
    return {"id": f"loc-{n}", "name": f"Room {n}", "x": 10.5 + n, "y": 2.25 * n, "floor_id": "f-1"}


def matrix(sources: int, targets: int) -> dict[str, Any]:
    return {
        "sources": [waypoint(n) for n in range(sources)],
        "targets": [waypoint(sources + n) for n in range(targets)],
        "costing": "pedestrian",
        "costing_options": {"pedestrian": {"mode": "foot"}},
        "distance_method": "default",
    }


def assignments(count: int) -> list[dict[str, str]]:
    return [
        {
            "group_id": "grp-1",
            "attribute_id": f"attr-{n % 5}",
            "asset_id": "ast-1",
            "unit_id": f"unt-{n:05d}",
        }
        for n in range(count)
    ]


def per_call_ms(call: Callable[[], Any], calls: int) -> tuple[float, float]:
    """Median and minimum per call over BLOCKS blocks of `calls` calls (GC off)."""
    call()
    blocks = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(BLOCKS):
            started = time.perf_counter()
            for _ in range(calls):
                call()
            blocks.append((time.perf_counter() - started) / calls * 1000)
    finally:
        gc.enable()
    return statistics.median(blocks), min(blocks)


class Case:
    """One request's input: its REST body member, GraphQL type and resolver field."""

    def __init__(
        self, label: str, field: str, argument: str, graphql_type: str, value: Any, calls: int
    ) -> None:
        self.label, self.argument, self.graphql_type, self.calls = (
            label,
            argument,
            graphql_type,
            calls,
        )
        self.schema = build_schema(Settings())
        self.graphql_schema = self.schema._schema
        root = self.schema.query if field == "distance_matrix" else self.schema.mutation
        self.field = next(
            f for f in root.__strawberry_definition__.fields if f.python_name == field
        )
        self.value = value
        self.camel = camelized(value)
        input_type = type_from_ast(self.graphql_schema, parse_type(graphql_type))
        self.input_type: Any = input_type
        self.coerced = {"id": "x", argument: coerce_input_value(self.camel, input_type)}
        self.id_name = next(a for a in ("unitMapId", "groupId") if a != argument)

    def strawberry(self) -> Any:
        arguments = convert_arguments(
            {self.id_name: "x", self.argument: self.coerced[self.argument]},
            self.field.arguments,
            self.schema.schema_converter.scalar_registry,
            self.schema.config,
        )
        return as_record(arguments[self.field.arguments[-1].python_name])

    def rows(self) -> list[tuple[str, float, float]]:
        record = self.strawberry()
        definitions = [
            cls.__strawberry_definition__
            for cls in (DistanceMatrixInput, UnitAttributeAssignmentInput)
        ]
        hooks = [definition.from_input for definition in definitions]
        rows = [
            ("strawberry + as_record, record inputs", *per_call_ms(self.strawberry, self.calls))
        ]
        for definition in definitions:
            definition.from_input = None
        try:
            assert self.strawberry() == record, "the generic conversion disagrees"
            rows.append(
                (
                    "strawberry + as_record, generic (before)",
                    *per_call_ms(self.strawberry, max(1, self.calls // 20)),
                )
            )
        finally:
            for definition, hook in zip(definitions, hooks, strict=True):
                definition.from_input = hook
        rows.append(
            (
                "graphql-core coerce_input_value (execution)",
                *per_call_ms(lambda: coerce_input_value(self.camel, self.input_type), self.calls),
            )
        )
        rows.append(
            ("REST body: camelized", *per_call_ms(lambda: camelized(self.value), self.calls))
        )
        rows.append(
            (
                "REST body: input_problems",
                *per_call_ms(
                    lambda: input_problems(
                        self.graphql_schema, self.graphql_type, self.camel, "data"
                    ),
                    self.calls,
                ),
            )
        )
        rows.append(
            (
                "REST body: validate_input_value (input_problems before)",
                *per_call_ms(
                    lambda: validate_input_value(self.camel, self.input_type, lambda *_: None),
                    self.calls,
                ),
            )
        )
        return rows


def main() -> None:
    """Time every step for E18 1 x 49 and 1 x 50 and an E21 body; print a Markdown table."""
    cases = [
        Case(
            "E18, 50 waypoints (1 x 49)",
            "distance_matrix",
            "input",
            "DistanceMatrixInput!",
            matrix(1, 49),
            200,
        ),
        Case(
            "E18, 51 waypoints (1 x 50)",
            "distance_matrix",
            "input",
            "DistanceMatrixInput!",
            matrix(1, 50),
            200,
        ),
        Case(
            "E21, 10,000 assignments",
            "assign_unit_attributes",
            "data",
            "[UnitAttributeAssignmentInput!]!",
            assignments(10_000),
            1,
        ),
    ]
    print("\n".join(f"- {line}" for line in machine()))
    print()
    print("| input | step | median ms per request | min ms |")
    print("|---|---|---:|---:|")
    for case in cases:
        for step, median, least in case.rows():
            print(f"| {case.label} | {step} | {median:.3f} | {least:.3f} |", flush=True)
    fast = per_call_ms(cases[0].strawberry, 200)[0]
    verdict = "met" if fast < GOAL_MS else "NOT met"
    print(f"\nGoal: converting 50 waypoints under {GOAL_MS} ms: {verdict} ({fast:.3f} ms).")


if __name__ == "__main__":
    main()
