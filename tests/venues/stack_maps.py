"""The walk graph of a venue's map of every level (its stack map, as `floorgate
import-imdf` and the demo draw it) and the locations on it, parsed and built once per
process (once per run under xdist, tests/venues/run_cache.py): the routing tests of
real-looking venues (tests/routing/test_profile.py, tests/routing/test_stops.py) share
them read-only, as the server shares a map's graph between requests. Westport House
indoor map data (c) WRLD / eeGeo, CC BY 4.0."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from parsing.imdf.venue import ImdfOptions
from parsing.svg import parse_unit_map
from routing.build import build_walk_graph
from routing.model import WalkGraph
from storage.demo.install import demo_dataset
from tests.venues.imdf_shared_ordinals import harbour_station
from tests.venues.imdf_venues import exchange
from tests.venues.run_cache import shared, shared_venue_dataset
from tests.venues.westport_imdf import westport

Spot = tuple[float, float, str]  # x, y (canvas units), floor id

IMDF: dict[str, Callable[[], Any]] = {
    "Harbour Station": harbour_station,
    "the Exchange": exchange,
    "Westport House": westport,
}


@dataclass(frozen=True)
class StackMap:
    graph: WalkGraph
    spots: tuple[Spot, ...]


def stack_graph(svg: str) -> WalkGraph | None:
    """The drawing's walk graph, built once per run under xdist (tests/venues/run_cache.py):
    the modules using a venue's graph may run on several workers."""
    return shared("stack-map-graph", svg.encode(), lambda: build_walk_graph(parse_unit_map(svg)))


def _stack_map(svg: str, spots: list[Spot]) -> StackMap:
    graph = stack_graph(svg)
    assert graph is not None
    return StackMap(graph, tuple(spots))


@cache
def imdf_stack(name: str) -> StackMap:
    """An IMDF venue of `IMDF` as `floorgate import-imdf` draws it: its stack map's walk
    graph and the locations on that map."""
    dataset = shared_venue_dataset(IMDF[name]().venue.files(), ImdfOptions())
    spots = [
        (float(loc["x"]), float(loc["y"]), loc["floors"][0]["id"])
        for loc in dataset.data["locations"]
        if loc["unit_map_id"] == dataset.stack_map
    ]
    return _stack_map(dataset.svgs[dataset.stack_map], spots)


@cache
def demo_stack(building: int) -> StackMap:
    """A demo building's map of its four floors and the locations of its floor maps
    (drawn on the same canvas)."""
    demo = demo_dataset()
    maps = {m["id"]: m for m in demo.data["unit_maps"]}
    spots = [
        (float(loc["x"]), float(loc["y"]), loc["floors"][0]["id"])
        for loc in demo.data["locations"]
        if loc["unit_map_id"].startswith(f"map-b{building}-")
    ]
    return _stack_map(demo.svgs[maps[f"map-b{building}"]["svg"]], spots)
