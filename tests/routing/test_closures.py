"""Which edges a closure closes (`routing.closures`): on a drawing of our own whose
every case is known (a lobby a corridor runs through, a shop a spur runs into, a unit a
corridor runs along, a courtyard's hole), on the demo's building map, and on a
real-looking IMDF venue against an independent count (points along each segment)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely

from parsing.demo.drawings import FLOORS, building_svg, floor_plan
from parsing.imdf.venue import ImdfOptions
from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.closures import (
    ClosedEdges,
    closed_edges,
    connector_edges,
    connector_kinds,
    unit_edges,
    unit_outlines,
    walked_edges,
)
from routing.model import ELEVATOR, LINK, STAIRS, WALK, WalkGraph
from storage.imdf.dataset import dataset_from_path
from tests.venues.imdf_venues import exchange, zip_bytes

LIFT = (
    '<rect data-connector="elevator" data-connector-id="cl-lift" '
    'x="285" y="60" width="20" height="20"/>'
)
STAIRS_AT = (
    '<rect data-connector="stairs" data-connector-id="cl-stairs" x="0" y="60" width="10" '
    'height="10"/>'
)


def level(n: int, units: str = "", paths: str = "") -> str:
    return (
        f'<g id="L{n}" data-level="L{n}" data-tag-floor="cl-f{n}" data-level-index="{n}">'
        f'<g data-layer="units">{units}</g>'
        '<g data-layer="paths"><line x1="0" y1="50" x2="300" y2="50"/>'
        f"{paths}</g>{LIFT}{STAIRS_AT}</g>"
    )


# Level 1: the corridor y=50 runs through the lobby (100-160) and along the top of the
# bay (240-280, below it); a spur at x=230 runs up into the shop (200-260, y 0-30); the
# courtyard (0-100 x 100-200) has a hole (30-70 x 130-170) holding a path of its own, and
# a path from its west side into the hole crosses its interior. Level 2: the corridor.
COURT = (
    '<path data-unit-id="cl-court" fill-rule="evenodd" '
    'd="M 0 100 L 100 100 L 100 200 L 0 200 Z M 30 130 L 70 130 L 70 170 L 30 170 Z"/>'
)
UNITS_1 = (
    '<rect data-unit-id="cl-lobby" x="100" y="30" width="60" height="40"/>'
    '<rect data-unit-id="cl-shop" x="200" y="0" width="60" height="30"/>'
    '<rect data-unit-id="cl-bay" x="240" y="50" width="40" height="40"/>' + COURT
)
PATHS_1 = (
    '<line x1="230" y1="50" x2="230" y2="15"/>'
    '<line x1="40" y1="150" x2="60" y2="150"/>'
    '<line x1="10" y1="150" x2="40" y2="150"/>'
)
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="220">'
    + level(1, UNITS_1, PATHS_1)
    + level(2, '<rect data-unit-id="cl-upper" x="100" y="30" width="60" height="40"/>')
    + "</svg>"
)


@pytest.fixture(scope="module")
def court() -> tuple[WalkGraph, dict]:
    parsed = parse_unit_map(SVG.encode())
    graph = build_walk_graph(parsed)
    assert graph is not None
    return graph, parsed.document


def segments(graph: WalkGraph, edges: frozenset[int] | set[int]) -> set[tuple]:
    """Each edge as (level, (x, y), (x, y)), ends in order: what it is, not its index."""
    found = set()
    for edge in edges:
        a = tuple(graph.node_xy[graph.edge_u[edge]].tolist())
        b = tuple(graph.node_xy[graph.edge_v[edge]].tolist())
        found.add((int(graph.node_level[graph.edge_u[edge]]), *sorted([a, b])))
    return found


def closed_by(graph: WalkGraph, document: dict, unit: str) -> set[tuple]:
    (outline, *more) = unit_outlines(document, [unit])
    assert more == []
    return segments(graph, unit_edges(graph, outline))


def test_a_corridor_through_a_unit_is_closed_along_it_not(court):
    graph, document = court
    assert closed_by(graph, document, "cl-lobby") == {(0, (5.0, 50.0), (230.0, 50.0))}
    assert closed_by(graph, document, "cl-bay") == set()  # the corridor runs along its wall
    assert closed_by(graph, document, "cl-upper") == {(1, (5.0, 50.0), (295.0, 50.0))}


def test_a_path_into_a_unit_is_closed(court):
    graph, document = court
    assert closed_by(graph, document, "cl-shop") == {(0, (230.0, 15.0), (230.0, 50.0))}


def test_a_hole_is_not_the_unit(court):
    graph, document = court
    (outline,) = unit_outlines(document, ["cl-court"])
    assert outline.holes == (((30.0, 130.0), (70.0, 130.0), (70.0, 170.0), (30.0, 170.0)),)
    # the path inside the hole stays open; the one from the west side into it does not
    assert closed_by(graph, document, "cl-court") == {(0, (10.0, 150.0), (40.0, 150.0))}


def test_a_connector_closes_its_rides_and_links_not_the_corridor(court):
    graph, _ = court
    lift = connector_edges(graph, ["cl-lift"])
    assert sorted(int(graph.edge_kind[e]) for e in lift) == [LINK, LINK, ELEVATOR]
    assert segments(graph, lift) == {
        (0, (295.0, 50.0), (295.0, 70.0)),
        (1, (295.0, 50.0), (295.0, 70.0)),
        (0, (295.0, 70.0), (295.0, 70.0)),
    }
    assert connector_kinds(graph) == {"cl-lift": "elevator", "cl-stairs": "stairs"}
    assert connector_edges(graph, ["no-such"]) == frozenset()


def test_closed_edges_are_the_union_and_by_closure(court):
    graph, document = court
    outlines = unit_outlines(document, ["cl-lobby", "cl-shop", "no-such-unit"])
    assert [o.unit_id for o in outlines] == ["cl-lobby", "cl-shop"]
    closed = closed_edges(graph, ["cl-stairs"], outlines)
    stairs = connector_edges(graph, ["cl-stairs"])
    assert sorted(int(graph.edge_kind[e]) for e in stairs) == [LINK, LINK, STAIRS]
    lobby, shop = (unit_edges(graph, o) for o in outlines)
    assert closed == ClosedEdges(
        stairs | lobby | shop,
        {
            ("connector", "cl-stairs"): stairs,
            ("unit", "cl-lobby"): lobby,
            ("unit", "cl-shop"): shop,
        },
    )
    assert len(closed.edges) == 5
    assert closed.memory_bytes == 4000 * 4 + 140 * 10


def test_the_demo_elevator_closes_every_ride_and_link():
    graph = build_walk_graph(parse_unit_map(building_svg([floor_plan(1, f) for f in FLOORS], "H")))
    assert graph is not None
    lift = connector_edges(graph, ["b1-elevator"])
    kinds = sorted(int(graph.edge_kind[e]) for e in lift)
    levels = len(FLOORS)
    # a link at each level's stop, a ride between every two levels
    assert kinds == [LINK] * levels + [ELEVATOR] * (levels * (levels - 1) // 2)
    assert not any(int(graph.edge_kind[e]) == WALK for e in lift)


def _samples(graph: WalkGraph, level: int) -> tuple[np.ndarray, np.ndarray]:
    """The walk and link edges of the level, and 401 points along each (one row an edge)."""
    u, v = graph.edge_u, graph.edge_v
    kept = np.isin(graph.edge_kind, (WALK, LINK))
    kept &= (graph.node_level[u] == level) & (graph.node_level[v] == level)
    edges = np.flatnonzero(kept)
    t = np.linspace(0.0, 1.0, 401)[None, :, None]
    points = graph.node_xy[u[edges]][:, None, :] * (1 - t) + graph.node_xy[v[edges]][:, None, :] * t
    return edges, shapely.points(points)


def _oracle(samples: tuple[np.ndarray, np.ndarray], polygon: shapely.Geometry) -> set[int]:
    """Edges with a point strictly inside the polygon among 401 along each (independent
    of `unit_edges`: no relate, no index): `samples` of the polygon's level."""
    edges, points = samples
    shapely.prepare(polygon)
    inside = shapely.contains_properly(polygon, points).any(axis=1)
    return {int(edge) for edge in edges[inside]}


def test_on_a_real_looking_venue_units_close_what_enters_them(tmp_path: Path):
    """The Exchange (tests/venues): every unit of its first level, against the oracle;
    its walkways close some edges, most rooms only their door paths."""
    archive = tmp_path / "exchange.zip"
    archive.write_bytes(zip_bytes(exchange().venue.files()))
    dataset = dataset_from_path(archive, ImdfOptions())
    level_id, svg = next(iter(dataset.svgs.items()))
    parsed = parse_unit_map(svg.encode() if isinstance(svg, str) else svg)
    graph = build_walk_graph(parsed)
    assert graph is not None
    units = [unit.id for unit in parsed.units]
    outlines = unit_outlines(parsed.document, units)
    assert len(outlines) == len(units) > 20
    closing = 0
    samples = {}  # by level: each edge's points made once
    for outline in outlines:
        polygon = shapely.Polygon(outline.points, [h for h in outline.holes if len(h) >= 3])
        level = graph.level_uids.index(outline.level_uid)
        found = unit_edges(graph, outline)
        if level not in samples:
            samples[level] = _samples(graph, level)
        assert found == _oracle(samples[level], polygon), outline.unit_id
        closing += bool(found)
    assert closing >= len(outlines) // 2, (closing, len(outlines), level_id)


def test_the_edges_a_route_walks(court):
    """`walked_edges`: of a unit's closed edges, those a route's pieces lie on, on their
    level; a spur it passes is not walked."""
    graph, document = court
    outlines = {each.unit_id: each for each in unit_outlines(document, ["cl-lobby", "cl-shop"])}
    lobby, shop = (unit_edges(graph, outlines[unit]) for unit in ("cl-lobby", "cl-shop"))
    along = [(0, [(50.0, 50.0), (130.0, 50.0), (250.0, 50.0)])]  # past the lobby and spur
    walked = walked_edges(graph, along, lobby | shop)
    assert walked and walked <= lobby and walked.isdisjoint(shop)
    middles = [(90.0, 50.0), (190.0, 50.0)]
    for edge in walked:  # each walked edge holds a middle of the route's pieces
        (x1, y1), (x2, y2) = graph.node_xy[graph.edge_u[edge]], graph.node_xy[graph.edge_v[edge]]
        assert any(min(x1, x2) <= x <= max(x1, x2) and y1 == y2 == y for x, y in middles)
    assert walked_edges(graph, [(1, along[0][1])], lobby | shop) == frozenset()  # upstairs
    assert walked_edges(graph, along, frozenset()) == frozenset()
    up_the_spur = [(0, [(230.0, 50.0), (230.0, 15.0)])]
    spur = walked_edges(graph, up_the_spur, lobby | shop)
    assert spur and spur <= shop
