"""An ad-hoc waypoint off its level's drawing is 422 on the waypoint (issue 45, point 1):
`route` and E18 on the walk graph, on REST and GraphQL, on the demo's four-level map-b1.

Before, a route from (1e9, -1e9) was walked from there to its foot on the nearest walk
line: a leg a billion units long, whose bend probe took 15 GB. A waypoint may be within
the box around its level's walk paths and connectors, widened on every side by 300 ft
(WAYPOINT_MARGIN_FT) or a quarter of the box's larger side, whichever is more, in whole
canvas units. On map-b1 (0.25 ft per unit) the walk paths of the upper floors span x 104
to 1296 and y 240 to 342: 300 ft is 1200 units, more than a quarter of 1192; the ground
floor's reach the pool at y 530.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest_asyncio

from resolvers.limits import WAYPOINT_MARGIN_FT
from resolvers.wayfinding.distances import drawn_box
from routing.costs import Costs
from routing.matrix import LoadedGraph
from routing.model import BOTH, WALK, WalkGraph
from tests.resolvers.wayfinding.test_distance_matrix import body, demo_env
from tests.resolvers.wayfinding.test_distance_matrix import post as post_e18
from tests.resolvers.wayfinding.test_route import FAILED, GYM, RouteEnv, gql, post

B1 = "map-b1"
FAR = {"x": 1e9, "y": -1e9, "floor_id": "b1-f4"}
OFF_F4 = (
    "(1e+09, -1e+09) is off the drawing of floor 'b1-f4': x must be from -1096 to 2496 "
    "and y from -960 to 1542"
)
MATRIX_QUERY = """
query ($map: ID!, $input: DistanceMatrixInput!) {
  distanceMatrix(unitMapId: $map, input: $input) { sources { targets { distance } } }
}"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    async with demo_env(db_server, settings, tmp_path_factory.mktemp("far"), RouteEnv) as made:
        yield made


def refused(fields: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
    return 422, {"message": FAILED, "fields": fields}


async def test_a_far_start_of_a_route_is_422_on_it(env):
    response = await post(env, B1, {"from": FAR, "to": {"id": GYM}})
    assert (response.status_code, response.json()) == refused({"data.from": [OFF_F4]})
    as_gql = await gql(env, {"map": B1, "from": camel(FAR), "to": {"id": GYM}})
    assert as_gql["data"] is None
    (error,) = as_gql["errors"]
    assert error["message"] == FAILED
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "fields": {"from": [OFF_F4]}}


async def test_both_ends_are_checked_each_against_its_own_level(env):
    """The ground floor's box reaches further south: the pool's walk path at y 530."""
    ground = {"x": -2000, "y": 5000, "floor_id": "b1-f1"}
    response = await post(env, B1, {"from": FAR, "to": ground, "mode": "wheelchair"})
    assert (response.status_code, response.json()) == refused(
        {
            "data.from": [OFF_F4],
            "data.to": [
                "(-2000, 5000) is off the drawing of floor 'b1-f1': x must be from -1176 to "
                "2496 and y from -960 to 1730"
            ],
        }
    )


async def test_the_box_is_inclusive_and_whole_units(env):
    """At the box's corner a route is answered; half a unit beyond it is refused."""
    corner = {"x": 2496, "y": 1542, "floor_id": "b1-f4"}
    inside = await post(env, B1, {"from": corner, "to": {"id": GYM}})
    assert inside.status_code == 200, inside.text
    route = inside.json()["route"]
    assert route["legs"][0]["points"][0] == {"x": 2496.0, "y": 1542.0}
    assert route["maneuvers"][0]["type"] == "depart"
    beyond = await post(env, B1, {"from": {**corner, "x": 2496.5}, "to": {"id": GYM}})
    assert beyond.status_code == 422
    assert beyond.json()["fields"]["data.from"] == [
        "(2496.5, 1542) is off the drawing of floor 'b1-f4': x must be from -1096 to 2496 "
        "and y from -960 to 1542"
    ]


async def test_the_margin_is_300_feet_beyond_the_walk_paths(env):
    """1200 units (300 ft at 0.25 ft a unit) east of the walk paths' east end at 1296."""
    assert WAYPOINT_MARGIN_FT == 300
    east = 1296 + WAYPOINT_MARGIN_FT / 0.25
    for x, status in ((east, 200), (east + 1, 422)):
        response = await post(
            env, B1, {"from": {"x": x, "y": 256, "floor_id": "b1-f2"}, "to": {"id": GYM}}
        )
        assert response.status_code == status, (x, response.text)


async def test_e18_refuses_a_far_waypoint_on_the_walk_graph(env):
    near = {"x": 600, "y": 256, "floor_id": "b1-f4"}
    response = await post_e18(env, B1, body([near, FAR], [{"id": GYM}, FAR]))
    assert (response.status_code, response.json()) == refused(
        {"data.sources.1": [OFF_F4], "data.targets.1": [OFF_F4]}
    )
    answer = await env.client.post(
        "/graphql",
        json={
            "query": MATRIX_QUERY,
            "variables": {"map": B1, "input": {"sources": [camel(FAR)], "targets": [{"id": GYM}]}},
        },
        headers=env.headers(),
    )
    (error,) = answer.json()["errors"]
    assert error["extensions"] == {
        "code": "BAD_USER_INPUT",
        "fields": {"input.sources.0": [OFF_F4]},
    }


async def test_straight_lines_and_locations_take_any_point_in_range(env):
    """A straight-line matrix walks nothing: a far point costs what a near one does. A
    waypoint given by its location id is where the map's data put it."""
    straight = await post_e18(env, B1, body([FAR], [{"id": GYM}], distance_method="euclidean"))
    assert straight.status_code == 200, straight.text
    assert straight.json()["data"]["distance_method"] == "euclidean"
    located = await post(
        env, B1, {"from": {"id": GYM}, "to": {"x": 600, "y": 256, "floor_id": "b1-f4"}}
    )
    assert located.status_code == 200, located.text


def walk_graph(feet_per_unit: float, lines: dict[int, list[tuple[float, float]]]) -> LoadedGraph:
    """A graph of one straight walk line per level (its two ends), loaded."""
    xy = np.array([end for level in sorted(lines) for end in lines[level]], dtype=np.float64)
    count = len(xy) // 2
    u = np.arange(0, 2 * count, 2, dtype=np.int32)
    graph = WalkGraph(
        feet_per_unit=feet_per_unit,
        level_uids=tuple(f"L{level}" for level in sorted(lines)),
        level_floors=tuple(f"f{level}" for level in sorted(lines)),
        node_xy=xy,
        node_level=np.repeat(np.arange(count, dtype=np.int32), 2),
        edge_u=u,
        edge_v=u + 1,
        edge_length=np.hypot(*(xy[u + 1] - xy[u]).T) * feet_per_unit,
        edge_kind=np.full(count, WALK, dtype=np.uint8),
        edge_steps=np.zeros(count, dtype=np.int32),
        edge_modes=np.full(count, BOTH, dtype=np.uint8),
    )
    return LoadedGraph(graph, Costs(), 10.0)


def test_the_margin_is_the_larger_of_300_feet_and_a_quarter_of_the_level():
    """A short corridor gets 300 ft around it, a 10,000-unit concourse a quarter of its
    length; each level its own box, in whole units rounded outward; no walk line, no box;
    a scale so small that 300 ft would overflow is held at twice the coordinates' range."""
    loaded = walk_graph(0.5, {0: [(10.5, 20.0), (110.0, 20.0)], 1: [(0.0, 0.0), (10_000.0, 0.0)]})
    assert drawn_box(loaded, 0) == (10 - 600, 20 - 600, 110 + 600, 20 + 600)
    assert drawn_box(loaded, 1) == (-2500, -2500, 12_500, 2500)
    assert drawn_box(loaded, 2) is None
    tiny = walk_graph(1e-320, {0: [(0.0, 0.0), (10.0, 0.0)]})
    assert drawn_box(tiny, 0) == (-2 * 10**9, -2 * 10**9, 2 * 10**9 + 10, 2 * 10**9)


def camel(waypoint: dict[str, Any]) -> dict[str, Any]:
    """A waypoint as GraphQL's WaypointInput spells it."""
    return {"floorId" if key == "floor_id" else key: value for key, value in waypoint.items()}
