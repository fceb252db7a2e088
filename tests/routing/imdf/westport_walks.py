"""Westport House's walks, imported against the exact reference, level by level (issue
48, point 7; issue 65, point 4): every pair of walked units of one level whose locations
stand in that level's free space and are joined in it, measured by the product's
`routing.reference.accuracy.route_walks` (every pair, not a sample).

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 (tests/data/README.md).
"""

from __future__ import annotations

from functools import cache

from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions, Venue
from routing.matrix import LoadedGraph
from routing.reference.accuracy import Walk, route_walks, walk_graph
from routing.reference.free_space import CLEARANCE
from tests.venues.run_cache import shared_venue_dataset
from tests.venues.westport_imdf import westport

WALKED = frozenset({"room", "restroom", "walkway"})  # every unit a person walks to is listed


@cache
def imported() -> tuple[Venue, dict[str, str]]:
    """The venue as read and its drawings, imported once per process."""
    built = westport()
    options = ImdfOptions(units=WALKED)
    dataset = shared_venue_dataset(built.venue.files(), options)  # once per run (xdist)
    return Venue(read_archive(built.venue.files()), options), dataset.svgs


@cache
def kept_graph(svg: str) -> LoadedGraph | None:
    """A drawing's walk graph, built once per process: both clearances judge one walk
    (and the venue tests share it: tests/routing/imdf/venue_accuracy.py)."""
    return walk_graph(svg)


@cache
def westport_pairs(clearance: float = CLEARANCE) -> tuple[list[Walk], dict[str, int]]:
    """The measured pairs of every level, and counts of what was left out and why."""
    venue, svgs = imported()
    return route_walks(venue, svgs, pairs=None, clearance=clearance, graphs=kept_graph)
