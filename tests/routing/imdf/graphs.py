"""Walk networks measured as the importer will use them: written as a `paths` layer at
0.05 m per canvas unit, parsed by `parse_unit_map`, built by `build_walk_graph` and
answered by `LoadedGraph.matrix` (one level)."""

from __future__ import annotations

from shapely import LineString

from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.imdf.model import Door, Space, WalkNetwork
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT
from routing.profile import Profile
from routing.reference.accuracy import loaded as loaded_graph

SCALE = 20.0  # canvas units per metre
FOOT_M = 0.3048


def room(ident: str, shape: object, point: tuple[float, float] | None = None) -> Space:
    return Space(ident, "L0", shape, True, True, None, point)  # type: ignore[arg-type]


def door(ident: str, a: tuple[float, float], b: tuple[float, float]) -> Door:
    return Door(ident, "L0", LineString([a, b]), True, True)


def loaded(net: WalkNetwork) -> LoadedGraph:
    lines = "".join(
        '<polyline points="{}"/>'.format(
            " ".join(f"{x * SCALE:.6f},{y * SCALE:.6f}" for x, y in line.points)
        )
        for line in net.lines
    )
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" '
        f'data-feet-per-unit="{1 / SCALE / FOOT_M!r}"><g id="L0" data-level="L0" '
        f'data-level-index="0"><g data-layer="paths">{lines}</g></g></svg>'
    )
    graph = build_walk_graph(parse_unit_map(svg))
    assert graph is not None
    return loaded_graph(graph)  # as E18 loads it


def metres(graph: LoadedGraph, a: tuple[float, float], b: tuple[float, float]) -> float | None:
    cell = graph.matrix(
        Profile(FOOT),
        [Point(a[0] * SCALE, a[1] * SCALE, 0)],
        [Point(b[0] * SCALE, b[1] * SCALE, 0)],
    )[0][0]
    return None if cell is None else cell[0] * FOOT_M
