"""A price is kept per document and per what it reads of the variables
(schema/execution/operation_cost.py `priced_digest`, guard.py `DocumentCaches.cost`).

Issue 45, point 9: four clients posting documents of 30 aliased routes, each route from a
point of its own sent as a variable, had every document priced again (150 fields walked,
about half of a refusal's time); the points' numbers never change the price. The digest
keeps what the price reads (a top-level value, member names, list lengths, strings) and
drops the rest, so such documents are priced once and anything that moves a price still
does."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from schema.execution import guard
from schema.execution.guard import DocumentCaches
from schema.execution.operation_cost import operation_cost, priced_digest
from tests.examples import examples
from tests.schema.test_operation_limits import LIMITS, SCHEMA, SETTINGS, cost
from tests.schema.test_route_costs import MATRIX, matrix_cost

ROUTES = 30
ROUTE = "query ({declared}) {{ {fields} }}".format(
    declared=", ".join(f"$f{i}: WaypointInput!" for i in range(ROUTES)),
    fields=" ".join(
        f'r{i}: route(unitMapId: "m", from: $f{i}, to: {{id: "b"}}) '
        "{ reason route { distance } }"
        for i in range(ROUTES)
    ),
)
numbers = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True))
waypoints = st.fixed_dictionaries(
    {"x": numbers, "y": numbers},
    optional={"floorId": st.text(max_size=8), "id": st.text(max_size=8)},
)


def renumbered(variables: dict[str, Any]) -> dict[str, Any]:
    """The variables with every number below their top level changed."""
    return {name: nested(value, top=True) for name, value in variables.items()}


def nested(value: Any, top: bool = False) -> Any:
    if isinstance(value, dict):
        return {name: nested(item) for name, item in value.items()}
    if isinstance(value, list):
        return [nested(item) for item in value]
    if isinstance(value, int | float) and not isinstance(value, bool) and not top:
        return 7 if value != 7 else 8
    return value


@settings(max_examples=examples(60), deadline=None)
@given(
    sources=st.lists(waypoints, max_size=9),
    targets=st.lists(waypoints, max_size=9),
    method=st.sampled_from([None, "euclidean", "walking"]),
)
@example(sources=[], targets=[], method=None)
@example(
    sources=[{"x": 7, "y": -(2**70)}, {"x": float("nan"), "y": 8.5, "floorId": "f"}],
    targets=[{"x": float("inf"), "y": 0, "id": "u"}],
    method="walking",
)
def test_numbers_inside_objects_and_lists_change_neither_digest_nor_price(sources, targets, method):
    given_input: dict[str, Any] = {"sources": sources, "targets": targets}
    if method is not None:
        given_input["distanceMethod"] = method
    variables = {"input": given_input}
    other = renumbered(variables)
    assert priced_digest(other) == priced_digest(variables)
    assert cost(MATRIX, other) == cost(MATRIX, variables)


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(waypoints, min_size=ROUTES, max_size=ROUTES))
@example([{"x": i, "y": -i, "floorId": "f"} if i % 2 else {"x": 7, "y": 0.5} for i in range(30)])
def test_thirty_routes_from_points_of_their_own_share_one_digest(points):
    """Thirty routes every time; a quarter of the draws in `make test`, all under
    `make explore` (tests/examples.py), and one pinned."""
    variables = {f"f{i}": point for i, point in enumerate(points)}
    other = renumbered(variables)
    assert priced_digest(other) == priced_digest(variables)
    assert cost(ROUTE, other) == cost(ROUTE, variables)


def test_what_the_price_reads_changes_the_digest():
    at = {"x": 1, "y": 2, "floorId": "f"}
    base = {"input": {"sources": [at], "targets": [at, at]}, "perPage": 5}
    changed = [
        {**base, "perPage": 6},  # a top-level value: a page size
        {**base, "perPage": 5.0},
        {**base, "perPage": True},
        {**base, "perPage": None},
        {"input": base["input"]},  # absent is not null
        {**base, "input": {"sources": [at], "targets": [at]}},  # a list's length
        {**base, "input": {"sources": [at], "targets": [at, {**at, "floorId": "g"}]}},
        {**base, "input": {**base["input"], "distanceMethod": "euclidean"}},
        {**base, "input": {"sources": [at], "targets": [at, {**at, "x": True}]}},
        {**base, "input": {"sources": [at], "targets": [at, {**at, "x": "1"}]}},
        {**base, "input": {"sources": at, "targets": [at, at]}},  # one, not a list of one
        {**base, "extra": "x"},
    ]
    digests = {priced_digest(variables) for variables in [base, *changed]}
    assert len(digests) == len(changed) + 1
    assert priced_digest(renumbered(base)) == priced_digest(base)


def test_deep_variables_are_digested_without_recursion():
    deep: Any = 1
    for _ in range(100_000):
        deep = {"a": [deep]}
    assert len(priced_digest({"v": deep})) == 16
    assert priced_digest({"v": deep}) != priced_digest({"v": {"a": []}})


def test_a_lone_surrogate_and_a_huge_integer_are_digested():
    assert priced_digest({"s": "\ud800", "n": 2**200}) != priced_digest(
        {"s": "\ud801", "n": 2**200}
    )


async def test_the_guard_prices_a_document_once_for_points_of_their_own(monkeypatch):
    # 4 MiB: its new documents' quarter holds the document of 30 routes (300 KB parsed)
    caches = DocumentCaches(LIMITS, 4 << 20, SETTINGS.graphql_max_tokens, 1 << 20)
    priced: list[int] = []

    def counted(*args: Any) -> int:
        priced.append(1)
        return operation_cost(*args)

    monkeypatch.setattr(guard, "operation_cost", counted)
    document = await caches.document(ROUTE)
    at = {"x": 1, "y": 2, "floorId": "f"}
    costs = {
        caches.cost(SCHEMA, document, {f"f{i}": {**at, "x": n + i} for i in range(ROUTES)}, None)
        for n in range(20)
    }
    assert costs == {ROUTES * 9_004} and len(priced) == 1
    by_id = {f"f{i}": {"id": "a"} for i in range(ROUTES)}
    assert caches.cost(SCHEMA, document, by_id, None) == ROUTES * 9_004
    assert len(priced) == 2  # other members and strings: priced again
    matrix = await caches.document(MATRIX)
    one = {"sources": [at], "targets": [at]}
    assert caches.cost(SCHEMA, matrix, {"input": one}, None) == matrix_cost(1, 1)
    assert caches.cost(SCHEMA, matrix, {"input": {**one, "targets": [at] * 5}}, None) == (
        matrix_cost(1, 5)
    )
