"""How much longer E18 walks than a person on an imported venue (issue 48, point 7; issue
65, point 4): E18's matrix on each level's walk graph, between the locations of its
walkable units and amenities, against the exact shortest walk through free space and
doors (routing/reference/free_space.py, the oracle, which shares no code with what it
judges), on a seeded sample of pairs of one level.

The judged side is what floorgate serves: each level's drawing parsed, its walk graph
built (routing/build.py), `LoadedGraph.matrix` asked between the locations (canvas
units, on the canvas the drawings were made on). The oracle's side reads the venue as
the archive gives it: walkable units (less the smaller ones drawn over them) shrunk by
the clearance, each walkable opening a passage between the units within `JOIN` of its
middle. Within levels only: the oracle knows no stairs nor lifts, and a ride's time is
no length. A location nearer its unit's wall than the clearance (or standing in another
unit, drawn over its own) is left out, counted.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import shapely
from shapely.geometry import LineString, MultiLineString, Point, Polygon

from parsing.imdf.ids import venue_ids
from parsing.imdf.projection import Canvas
from parsing.imdf.read import Feature
from parsing.imdf.venue import Venue
from parsing.measures import METRES_PER_FOOT
from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.imdf.walks import CLOSED_OPENINGS, NOT_WALKABLE, RESTRICTED, venue_bounds
from routing.matrix import LoadedGraph
from routing.matrix import Point as Waypoint
from routing.model import FOOT, WalkGraph
from routing.profile import Profile
from routing.reference.free_space import CLEARANCE, free_spaces, shortest_walks

XY = tuple[float, float]

GOALS = (1.03, 1.08, 1.25)  # median, p90, max of walked / exact (issue 48, point 7)
PAIRS = 200  # pairs sampled by default (the health report's)
WORST = 5  # worst pairs kept in a result
JOIN = 0.5  # metres: an opening joins the walkable units this near its middle
SHORTEST = 0.5  # metres: pairs nearer than this (one spot, two names) are not measured
WALKWAY = "walkway"  # the category of corridors and open areas
LEFT_OUT = ("outside free space", "apart in free space", "not routed")


@dataclass(frozen=True)
class Walk:
    """One measured pair: its two locations (names and ids), the level's map, E18's
    metres and the exact shortest walk's."""

    map_id: str
    a: str
    b: str
    a_id: str
    b_id: str
    walked: float
    exact: float

    @property
    def ratio(self) -> float:
        return self.walked / self.exact

    @property
    def label(self) -> str:
        return f"{self.a} - {self.b}"


@dataclass(frozen=True)
class RouteAccuracy:
    """The figures of a venue's sample: pairs measured, median, p90 and max of walked /
    exact (0 when none), the worst pairs (worst first), and what was left out and why."""

    pairs: int
    median: float
    p90: float
    max: float
    worst: tuple[Walk, ...]
    left: tuple[tuple[str, int], ...]

    @property
    def within_goals(self) -> bool:
        return self.median <= GOALS[0] and self.p90 <= GOALS[1] and self.max <= GOALS[2]


@dataclass(frozen=True)
class _Spot:
    """A location the sample may take: its id, name, level, point (metres) and unit."""

    id: str
    name: str
    level: str
    metres: XY
    unit: str


def walk_graph(svg: str) -> LoadedGraph | None:
    """The map's walk graph as E18 loads it (None: the map has no walk lines)."""
    graph = build_walk_graph(parse_unit_map(svg))
    return None if graph is None else loaded(graph)


def loaded(graph: WalkGraph) -> LoadedGraph:
    """A built walk graph as E18 loads it (the default costs, 10 ft a floor)."""
    return LoadedGraph(graph, Costs(), 10.0)


def route_accuracy(
    venue: Venue,
    svgs: Mapping[str, str],
    *,
    id_prefix: str | None = None,
    seed: int = 0,
    pairs: int | None = PAIRS,
) -> RouteAccuracy:
    """The figures of `pairs` pairs drawn with `seed` (every pair when None) from the
    venue's levels. `svgs`: the imported drawings by map id (a dataset's `svgs`), each
    level's map id given by `id_prefix` as the import gave it (`ImdfOptions.id_prefix`)."""
    walks, left = route_walks(venue, svgs, id_prefix=id_prefix, seed=seed, pairs=pairs)
    return summary(walks, left)


def summary(walks: list[Walk], left: Mapping[str, int], worst: int = WORST) -> RouteAccuracy:
    """The figures of measured walks (nearest-rank p90)."""
    ratios = sorted(w.ratio for w in walks)
    if not ratios:
        return RouteAccuracy(0, 0.0, 0.0, 0.0, (), tuple(left.items()))
    ranked = tuple(sorted(walks, key=lambda w: (-w.ratio, w.map_id, w.a_id, w.b_id))[:worst])
    p90 = ratios[math.ceil(0.9 * len(ratios)) - 1]
    return RouteAccuracy(
        len(ratios), statistics.median(ratios), p90, ratios[-1], ranked, tuple(left.items())
    )


def report(title: str, result: RouteAccuracy) -> str:
    """The figures and the worst pairs in lines of text."""
    lines = [
        f"{title}: {result.pairs} pairs, median {result.median:.4f}, p90 {result.p90:.4f}, "
        f"max {result.max:.4f}"
    ]
    for walk in result.worst:
        lines.append(
            f"  {walk.ratio:.4f}  {walk.label} ({walk.map_id}): "
            f"{walk.walked:.2f} m walked, {walk.exact:.2f} m exact"
        )
    return "\n".join(lines)


def route_walks(
    venue: Venue,
    svgs: Mapping[str, str],
    *,
    id_prefix: str | None = None,
    seed: int = 0,
    pairs: int | None = PAIRS,
    clearance: float = CLEARANCE,
    graphs: Callable[[str], LoadedGraph | None] = walk_graph,
) -> tuple[list[Walk], dict[str, int]]:
    """The measured walks of the sample, and counts of what was left out and why
    (`graphs`: as `e18_metres` takes it)."""
    ids = venue_ids(venue, id_prefix)
    canvas = Canvas.around(venue_bounds(venue))
    left = dict.fromkeys(LEFT_OUT, 0)
    units = _walkable_units(venue)
    doors = _doors(venue, units)
    spots = _spots(venue, units)
    candidates: list[tuple[str, int, _Spot, _Spot]] = []  # level, piece, a, b
    pieces_of: dict[str, list[shapely.Polygon]] = {}
    for level in sorted({s.level for s in spots}):
        if ids.floor(level) not in svgs:
            continue
        shapes = [p for u in units.values() if u[0] == level for p in _polygons(u[1])]
        free = free_spaces(
            shapes, [d[:3] for d in doors[level]], clearance, [d[3] for d in doors[level]]
        )
        pieces = pieces_of[level] = _polygons(free)
        where: dict[int, list[_Spot]] = defaultdict(list)
        for spot in (s for s in spots if s.level == level):
            point = Point(spot.metres)
            inside = [k for k, piece in enumerate(pieces) if piece.covers(point)]
            own = shapely.buffer(units[spot.unit][1], -clearance, join_style="mitre")
            if not inside or not own.covers(point):
                left["outside free space"] += 1
                continue
            where[inside[0]].append(spot)
        for k, members in sorted(where.items()):
            for i, a in enumerate(members):
                candidates += [(level, k, a, b) for b in members[i + 1 :]]
    if pairs is not None and pairs < len(candidates):
        candidates = random.Random(seed).sample(candidates, pairs)
    by_piece: dict[tuple[str, int], list[tuple[_Spot, _Spot]]] = defaultdict(list)
    for level, k, a, b in candidates:
        by_piece[level, k].append((a, b))
    exact: dict[tuple[str, str], float] = {}
    for (level, k), chosen in sorted(by_piece.items()):
        points = sorted({s for pair in chosen for s in pair}, key=lambda s: s.id)
        table = shortest_walks(pieces_of[level][k], [s.metres for s in points])
        for i, a in enumerate(points):
            for j, b in enumerate(points):
                exact[a.id, b.id] = table[i][j]
    walks: list[Walk] = []
    levels = sorted({level for level, _ in by_piece})
    for level in levels:
        chosen = [
            pair for (lv, _), found in sorted(by_piece.items()) if lv == level for pair in found
        ]
        points = sorted({s for pair in chosen for s in pair}, key=lambda s: s.id)
        index = {s.id: n for n, s in enumerate(points)}
        got = e18_metres(svgs[ids.floor(level)], [canvas.xy(*s.metres) for s in points], graphs)
        for a, b in chosen:
            metres = exact[a.id, b.id]
            if not math.isfinite(metres):
                left["apart in free space"] += 1
                continue
            if metres < SHORTEST:
                continue
            cell = got[index[a.id]][index[b.id]]
            if cell is None:
                left["not routed"] += 1
                continue
            walks.append(Walk(ids.floor(level), a.name, b.name, a.id, b.id, cell, metres))
    return walks, left


def e18_metres(
    svg: str, points: list[XY], graphs: Callable[[str], LoadedGraph | None] = walk_graph
) -> list[list[float | None]]:
    """E18's metres between every two canvas points on the map's walk graph (`graphs`:
    how the graph of a drawing is had, built each time unless a caller keeps them)."""
    loaded = graphs(svg)
    if loaded is None:
        return [[None] * len(points) for _ in points]
    at = [Waypoint(x, y, 0) for x, y in points]
    cells = loaded.matrix(Profile(FOOT), at, at)
    return [[None if cell is None else cell[0] * METRES_PER_FOOT for cell in row] for row in cells]


def _walkable_units(venue: Venue) -> dict[str, tuple[str, shapely.Geometry]]:
    """The units a person walks in, by id: level and shape (metres), a unit less the
    smaller ones drawn over it (`_carved`)."""
    found = {}
    for unit_id, unit in venue.units.items():
        restriction = str(unit.feature.properties.get("restriction") or "").lower()
        if unit.category not in NOT_WALKABLE and restriction not in RESTRICTED:
            found[unit_id] = (unit.level, unit.shape)
    return _carved(venue, found)


def _carved(
    venue: Venue, units: dict[str, tuple[str, shapely.Geometry]]
) -> dict[str, tuple[str, shapely.Geometry]]:
    """Each unit less the smaller units lying at least half over it (a ticket office
    drawn inside a hall has walls: a person walks round it), but a walkway over a
    walkway (one corridor drawn as two areas)."""
    ids = list(units)
    shapes = [units[k][1] for k in ids]
    tree = shapely.STRtree(shapes)
    carved = dict(units)
    for n, unit_id in enumerate(ids):
        level, shape = units[unit_id]
        open_space = venue.units[unit_id].category == WALKWAY
        over = []
        for k in sorted(int(k) for k in tree.query(shape, predicate="intersects")):
            other = ids[k]
            if k == n or units[other][0] != level or shapes[k].area >= shape.area:
                continue
            if open_space and venue.units[other].category == WALKWAY:
                continue
            if shapely.intersection(shape, shapes[k]).area >= 0.5 * shapes[k].area:
                over.append(shapes[k])
        if over:
            carved[unit_id] = (level, shapely.difference(shape, shapely.union_all(over)))
    return carved


def _doors(
    venue: Venue, units: Mapping[str, tuple[str, shapely.Geometry]]
) -> dict[str, list[tuple[XY, XY, float, shapely.Geometry]]]:
    """Each level's walkable openings: ends, how far the units they join lie from the
    opening's middle (the passage crosses that much wall on each side) and those units
    (the two nearest within JOIN)."""
    found: dict[str, list[tuple[XY, XY, float, shapely.Geometry]]] = defaultdict(list)
    shapes = list(units.values())
    for feature in venue.archive.of("opening"):
        properties = feature.properties
        level = str(properties.get("level_id"))
        category = str(properties.get("category") or "").lower()
        restriction = str(properties.get("restriction") or "").lower()
        if properties.get("access_control") or category in CLOSED_OPENINGS:
            continue
        if restriction in RESTRICTED or level not in venue.levels:
            continue
        line = _plane(venue, feature)
        if isinstance(line, MultiLineString):
            line = max(line.geoms, key=lambda g: g.length)
        if not isinstance(line, LineString) or line.length <= 0:
            continue
        mid = line.interpolate(0.5, normalized=True)
        near = sorted((s.distance(mid), k) for k, (lv, s) in enumerate(shapes) if lv == level)
        near = [(d, k) for d, k in near if d <= JOIN][:2]
        if not near:
            continue
        (x0, y0), (x1, y1) = line.coords[0][:2], line.coords[-1][:2]
        joined = shapely.union_all([shapes[k][1] for _, k in near])
        found[level].append(((x0, y0), (x1, y1), max(d for d, _ in near), joined))
    return found


def _spots(venue: Venue, units: Mapping[str, tuple[str, shapely.Geometry]]) -> list[_Spot]:
    """The locations measured: each listed walkable unit's point, each amenity's point in
    a walkable unit (sorted by id)."""
    found = [
        _Spot(
            unit_id,
            _name(venue, unit.name, unit.feature.properties) or unit_id,
            unit.level,
            unit.point,
            unit_id,
        )
        for unit_id, unit in venue.units.items()
        if unit.listed and unit_id in units
    ]
    for feature in venue.archive.of("amenity"):
        inside = [u for u in venue.units_of(feature) if u.feature.id in units]
        point = _plane(venue, feature) if inside else None
        if isinstance(point, Point):
            name = _name(venue, "", feature.properties) or feature.category or feature.id
            unit = next((u for u in inside if u.shape.covers(point)), inside[0])
            at = (point.x, point.y)
            found.append(_Spot(feature.id, name, unit.level, at, unit.feature.id))
    return sorted(found, key=lambda s: s.id)


def _plane(venue: Venue, feature: Feature) -> shapely.Geometry | None:
    """The feature's geometry in the venue's metres, None where it has none or cannot be
    read (the import reports those; the measure passes them over)."""
    if feature.geometry is None:
        return None
    try:
        found: shapely.Geometry = venue.plane.to_plane(feature.geometry)
    except (ValueError, TypeError, AttributeError, shapely.errors.ShapelyError):
        return None
    return found


def _polygons(shape: shapely.Geometry) -> list[Polygon]:
    return [g for g in getattr(shape, "geoms", [shape]) if isinstance(g, Polygon)]


def _name(venue: Venue, given: str, properties: Mapping[str, object]) -> str:
    """The name the import gave, else the archive's (a venue not yet named)."""
    return given or venue.text(properties.get("name")) or ""
