"""A nearest route's candidates are kept with the map's walk graph (`nearest._targets`,
`routing.closest.keep_targets`) while the map's locations stay as they are: a change of a
location's tags or place is seen by the next request, by `tags` and by `ids`, though
the walk graph (and what it keeps) is the same one.

Our own asset: one level, a corridor from (10, 10) to (210, 10), 1 ft per unit; two
bins, West at (20, 10) and East at (200, 10). The start is (190, 10).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from resolvers.context import RequestContext
from resolvers.wayfinding.distances import map_graph
from routing.closest import _KEPT
from routing.matrix import LoadedGraph
from storage.imports.importer import import_data
from tests.resolvers.wayfinding.test_distance_matrix import demo_env
from tests.resolvers.wayfinding.test_route import RouteEnv, post

ASSET, MAP, FLOOR = "nk-asset", "nk-map", "nk-f1"
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="220" height="20">'
    f'<g id="L1" data-level="L1" data-tag-floor="{FLOOR}" data-level-index="1">'
    '<g data-layer="paths"><line x1="10" y1="10" x2="210" y2="10"/></g></g></svg>'
)
STAMP = "2026-01-01T00:00:00+00:00"
START = {"x": 190, "y": 10, "floor_id": FLOOR}
BINS = {"nearest": {"tags": "kind==bin"}}
BOTH = {"nearest": {"ids": ["nk-west", "nk-east"]}}


def dataset(east: tuple[float, str]) -> dict[str, Any]:
    """The asset, East at x `east[0]` with the kind `east[1]`."""

    def location(id_: str, x: float, kind: str) -> dict[str, Any]:
        return {
            "id": id_,
            "asset_id": ASSET,
            "unit_map_id": MAP,
            "name": id_,
            "x": x,
            "y": 10,
            "floors": [{"id": FLOOR}],
            "tags": [{"key": "kind", "value": kind, "created_at": STAMP, "updated_at": STAMP}],
            "created_at": STAMP,
            "updated_at": STAMP,
        }

    return {
        "version": 1,
        "assets": [{"id": ASSET, "market": "office", "name": "Kept"}],
        "floors": [{"id": FLOOR, "asset_id": ASSET, "name": "F1", "sort": 1}],
        "unit_maps": [{"id": MAP, "asset_id": ASSET, "name": "Corridor"}],
        "locations": [location("nk-west", 20, "bin"), location("nk-east", *east)],
    }


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env(db_server, settings, tmp_path_factory) -> AsyncIterator[RouteEnv]:
    tmp = tmp_path_factory.mktemp("nearest-kept")
    async with demo_env(db_server, settings, tmp, RouteEnv) as made:
        await import_data(made.store, dataset((200, "bin")), tmp, svg_sources={MAP: SVG})
        yield made


async def walk_graph(env: RouteEnv) -> LoadedGraph:
    """The map's walk graph as requests find it (the process's graph cache)."""
    unit_map = await env.store["unit_maps"].find_one({"_id": MAP})
    context = RequestContext(env.app.services, None, frozenset())
    return await map_graph(context, {**unit_map, "id": MAP})


async def chosen(env: RouteEnv, to: dict[str, Any]) -> tuple[str, float]:
    response = await post(env, MAP, {"from": START, "to": to})
    assert response.status_code == 200, response.text
    answer = response.json()
    return answer["to"]["id"], answer["route"]["distance"]


async def test_kept_candidates_follow_the_maps_locations(env):
    assert await chosen(env, BINS) == ("nk-east", 10.0)
    assert await chosen(env, BOTH) == ("nk-east", 10.0)
    loaded = await walk_graph(env)
    assert (len(_KEPT[loaded].sets), _KEPT[loaded].points) == (2, 4)  # both, two each
    # East is no bin any more: `tags` finds West only.
    await import_data(env.store, dataset((200, "desk")), env.tmp, svg_sources={MAP: SVG})
    assert await chosen(env, BINS) == ("nk-west", 170.0)
    assert await chosen(env, BOTH) == ("nk-east", 10.0)
    # East moved past West (175 ft away): `ids` chooses West.
    await import_data(env.store, dataset((15, "bin")), env.tmp, svg_sources={MAP: SVG})
    assert await chosen(env, BOTH) == ("nk-west", 170.0)
    assert await chosen(env, BINS) == ("nk-west", 170.0)
    assert await walk_graph(env) is loaded  # the same graph throughout
