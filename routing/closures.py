"""Which edges of a walk graph a closure closes (issue 50, closures as data): pure, the
graph and the parsed document in, edge indices out.

- A closed **connector** (its `data-connector-id`, which `WalkGraph.stop_ids` gives each
  of its stop nodes) closes every edge at its stop nodes that is not a walk edge: its
  rides or flights between levels and the link edges that join each stop to its level.
  A walk line that merely passes through a stop node stays open.
- A closed **unit** closes every walk and link edge of the unit's level that enters its
  outline: an endpoint strictly inside it, or a segment through its interior (the
  outline less its holes; a segment along a wall does not enter). Nothing passes
  through the unit, and nothing inside it can be reached.

The unit outlines are read from the parsed document (`unit_outlines`): each Unit
belongs to its innermost enclosing Level, whose uid is the graph's `level_uids` entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from parsing.geo.document_walk import walk_levels
from parsing.geo.level_outlines import parsed_points
from routing.model import CONNECTOR_KINDS, CONNECTOR_NAMES, LINK, WALK, WalkGraph

if TYPE_CHECKING:  # numpy and shapely are imported by the first closure computed
    import numpy as np

Ring = tuple[tuple[float, float], ...]
XY = tuple[float, float]
# A route's point within this of an edge (canvas units) is on it: legs are drawn through
# the graph's node points, so a walked edge holds its pieces' middles up to rounding.
ON_EDGE_UNITS = 0.01
# What a `ClosedEdges` holds (tracemalloc: 137 bytes per edge of 5,000, 3.9 kB for 20).
EDGE_BYTES = 140
CLOSED_BASE_BYTES = 4000


@dataclass(frozen=True)
class UnitOutline:
    """One drawn shape of a unit: its level's uid, its outline and its holes."""

    unit_id: str
    level_uid: str | None
    points: Ring
    holes: tuple[Ring, ...] = ()


@dataclass(frozen=True)
class ClosedEdges:
    """The edges a set of closures closes, all and by closure (`connector` or `unit`,
    and its id), as a per-process cache keeps them."""

    edges: frozenset[int]
    by_target: dict[tuple[str, str], frozenset[int]]

    @property
    def memory_bytes(self) -> int:
        """What it holds: measured with tracemalloc, about EDGE_BYTES per edge (twice:
        in the whole set and in its closure's)."""
        held = len(self.edges) + sum(len(edges) for edges in self.by_target.values())
        return CLOSED_BASE_BYTES * (1 + len(self.by_target)) + EDGE_BYTES * held


def closed_edges(
    graph: WalkGraph, connectors: Iterable[str], outlines: Iterable[UnitOutline]
) -> ClosedEdges:
    """The edges closed by the closed connectors (ids) and units (their outlines; a
    unit without one closes nothing)."""
    by_target = {("connector", name): connector_edges(graph, [name]) for name in connectors}
    for outline in outlines:
        key = ("unit", outline.unit_id)
        by_target[key] = by_target.get(key, frozenset()) | unit_edges(graph, outline)
    every = frozenset().union(*by_target.values())
    return ClosedEdges(every, by_target)


def connector_edges(graph: WalkGraph, connector_ids: Iterable[str]) -> frozenset[int]:
    """Every connector and link edge at a stop node of the connectors named."""
    import numpy as np

    wanted = set(connector_ids)
    stops = [node for node, name in graph.stop_ids.items() if name in wanted]
    if not stops:
        return frozenset()
    at_stop = np.isin(graph.edge_u, stops) | np.isin(graph.edge_v, stops)
    closable = graph.edge_kind != WALK
    return frozenset(np.flatnonzero(at_stop & closable).tolist())


def connector_kinds(graph: WalkGraph) -> dict[str, str]:
    """Each connector id of the graph with its kind (`elevator`, `stairs`, ...), from
    the rides or flights at its stop nodes; a connector with none (its stops on one
    level, or a graph stored before connectors were named) is left out."""
    import numpy as np

    if not graph.stop_ids:
        return {}
    rides = np.flatnonzero(np.isin(graph.edge_kind, list(CONNECTOR_KINDS.values())))
    kinds: dict[str, str] = {}
    for edge in rides.tolist():
        for node in (int(graph.edge_u[edge]), int(graph.edge_v[edge])):
            connector = graph.stop_ids.get(node)
            if connector is not None:
                kinds.setdefault(connector, CONNECTOR_NAMES[int(graph.edge_kind[edge])])
    return kinds


def unit_edges(graph: WalkGraph, outline: UnitOutline) -> frozenset[int]:
    """The walk and link edges of the outline's level that enter it."""
    import numpy as np
    import shapely

    if outline.level_uid not in graph.level_uids or len(outline.points) < 3:
        return frozenset()
    level = graph.level_uids.index(outline.level_uid)
    polygon = shapely.Polygon(outline.points, [hole for hole in outline.holes if len(hole) >= 3])
    if not polygon.is_valid:
        polygon = shapely.make_valid(polygon)
    if polygon.is_empty:
        return frozenset()
    edges = _level_edges(graph, level)
    if not len(edges):
        return frozenset()
    u, v = graph.edge_u[edges], graph.edge_v[edges]
    lines = shapely.linestrings(np.stack([graph.node_xy[u], graph.node_xy[v]], axis=1))
    tree = shapely.STRtree(lines)  # as routing.matrix's `_Segments`: only the candidates
    candidates = tree.query(polygon, predicate="intersects")
    if not len(candidates):
        return frozenset()
    found = lines[candidates]
    shapely.prepare(polygon)  # in place: asked once per candidate below
    through = shapely.relate_pattern(polygon, found, "T********")  # interiors meet
    ends = [shapely.points(graph.node_xy[end[candidates]]) for end in (u, v)]
    inside = shapely.contains_properly(polygon, ends[0]) | shapely.contains_properly(
        polygon, ends[1]
    )
    entering = through | inside
    return frozenset(edges[candidates[entering]].tolist())


def walked_edges(
    graph: WalkGraph, legs: Iterable[tuple[int, Sequence[XY]]], edges: Iterable[int]
) -> frozenset[int]:
    """Of `edges` (walk and link edges), those a route walks along: the middle of a
    piece of one of its `legs` (level, canvas points) lies on the edge, on its level.
    What a route found without the closures would need of a unit's closed edges (a
    route's legs keep their points, not the graph's edges)."""
    import numpy as np
    import shapely

    wanted = np.fromiter(sorted(set(edges)), dtype=np.int64)
    if not len(wanted):
        return frozenset()
    u, v = graph.edge_u[wanted], graph.edge_v[wanted]
    levels = graph.node_level[u]
    lines = shapely.linestrings(np.stack([graph.node_xy[u], graph.node_xy[v]], axis=1))
    found: set[int] = set()
    for level, points in legs:
        on = np.flatnonzero(levels == level)
        if len(points) < 2 or not len(on):
            continue
        xy = np.asarray(points, dtype=np.float64)
        middles = shapely.points((xy[:-1] + xy[1:]) / 2)
        tree = shapely.STRtree(lines[on])
        _, hits = tree.query(middles, predicate="dwithin", distance=ON_EDGE_UNITS)
        found.update(wanted[on[hits]].tolist())
    return frozenset(found)


def _level_edges(graph: WalkGraph, level: int) -> np.ndarray:
    """The walk and link edges both of whose ends are on `level`."""
    import numpy as np

    kinds = (graph.edge_kind == WALK) | (graph.edge_kind == LINK)
    on = (graph.node_level[graph.edge_u] == level) & (graph.node_level[graph.edge_v] == level)
    return np.flatnonzero(kinds & on)


def unit_outlines(document: dict[str, Any], unit_ids: Iterable[str]) -> list[UnitOutline]:
    """The drawn shapes of the units named, in document order (a unit drawn twice, or
    on two levels, has two); a unit the document does not draw has none."""
    wanted = set(unit_ids)
    found: list[UnitOutline] = []
    for element, level, _ in walk_levels(document.get("elements") or []):
        level_uid = None if level is None else str(level.get("uid"))
        unit_id = element.get("id")
        if element.get("type") != "Unit" or unit_id not in wanted:
            continue
        shape = element.get("shape")
        if not isinstance(shape, dict):
            continue
        points = _ring(shape.get("points"))
        holes = tuple(_ring(hole) for hole in shape.get("holes") or ())
        found.append(UnitOutline(str(unit_id), level_uid, points, holes))
    return found


def _ring(points: Any) -> Ring:
    """`x,y x,y ...` as the parser writes it; a malformed or non-finite pair is skipped."""
    return tuple(parsed_points(points))
