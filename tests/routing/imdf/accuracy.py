"""Walk lengths of an imported IMDF venue against the exact reference (issue 48, point 7):
E18's matrix between units' locations on each level's walk graph, the reference's
shortest walks through free space and doors (tests/routing/imdf/free_space.py) between
the same points, and the figures (median, p90, max, worst pairs) printed by the tests.

The imported side is what floorgate serves: each level's drawing parsed, its walk graph
built, `LoadedGraph.matrix` asked between the locations of its units (canvas units),
converted to metres on the dataset's canvas (`Canvas.plane`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from parsing.imdf.projection import Canvas
from parsing.imdf.venue import Venue
from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.costs import Costs
from routing.imdf.walks import venue_bounds
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT
from routing.profile import Profile
from storage.imdf.dataset import ImdfDataset

FEET = 0.3048
XY = tuple[float, float]

GOALS = (1.03, 1.08, 1.25)  # median, p90, max (issue 48, point 7)


@dataclass(frozen=True)
class Pair:
    """One measured walk: who to whom, E18's metres and the reference's."""

    label: str
    walked: float
    exact: float

    @property
    def ratio(self) -> float:
        return self.walked / self.exact


def figures(pairs: list[Pair]) -> tuple[float, float, float]:
    """Median, p90 (nearest rank) and max of the ratios."""
    ratios = sorted(p.ratio for p in pairs)
    return statistics.median(ratios), ratios[math.ceil(0.9 * len(ratios)) - 1], ratios[-1]


def report(title: str, pairs: list[Pair], worst: int = 6) -> str:
    """The figures and the worst pairs, as the tests print them."""
    median, p90, top = figures(pairs)
    lines = [f"{title}: {len(pairs)} pairs, median {median:.4f}, p90 {p90:.4f}, max {top:.4f}"]
    for pair in sorted(pairs, key=lambda p: -p.ratio)[:worst]:
        walk = f"{pair.walked:.2f} m walked, {pair.exact:.2f} m exact"
        lines.append(f"  {pair.ratio:.4f}  {pair.label}: {walk}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Spot:
    """A location on one level's map: its unit's id (a unit's location) or its own
    (an amenity's, an occupant's), canvas units and metres."""

    unit_id: str
    map_id: str
    canvas: XY
    metres: XY


def spots(dataset: ImdfDataset, venue: Venue) -> list[Spot]:
    """Every unit and amenity location of the dataset's maps, in canvas units and in
    the venue's metres (the canvas the dataset was drawn on)."""
    canvas = Canvas.around(venue_bounds(venue))
    found = []
    for location in dataset.data["locations"]:
        tags = {t["key"]: t["value"] for t in location.get("tags", [])}
        if tags.get("svc:type") == "unit" and tags.get("svc:id") in venue.units:
            key = tags["svc:id"]
        elif tags.get("imdf:feature") in ("amenity", "occupant"):
            key = str(location["id"]).split("@")[0]
        else:
            continue
        x, y = float(location["x"]), float(location["y"])
        found.append(Spot(key, location["unit_map_id"], (x, y), canvas.plane(x, y)))
    return found


def walked(svg: str, points: list[XY]) -> list[list[float | None]]:
    """E18's metres between every two canvas points on the map's walk graph."""
    graph = build_walk_graph(parse_unit_map(svg))
    assert graph is not None
    loaded = LoadedGraph(graph, Costs(), 10.0)
    at = [Point(x, y, 0) for x, y in points]
    cells = loaded.matrix(Profile(FOOT), at, at)
    return [[None if cell is None else cell[0] * FEET for cell in row] for row in cells]
