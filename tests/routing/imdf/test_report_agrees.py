"""The import's report agrees with the routes (issue 65, points 2 and 6): on every venue
the tests have, a walked unit is reported reachable on foot (by wheelchair) exactly when
E18 on the venue's stack map routes to it on foot (by wheelchair) from the venue's main
part, the part the reachability starts from (routing/imdf/reachability.py: the part with
the most units among those holding an entrance, else the largest). E18 starts from one
unit the report reaches (the first by id): a route reaches what is joined to it, so
whatever else it reaches is in that part and whatever it misses is not. Pure: the stack
map's walk graph is built and asked in-process, as E18 asks it (50 targets a call).

Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0; the OSM places (c)
OpenStreetMap contributors, ODbL (tests/data/README.md).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from parsing.imdf.venue import ImdfOptions
from routing.imdf.reachability import REASONS
from routing.matrix import LoadedGraph, Point
from routing.model import FOOT, WHEELCHAIR
from routing.profile import Profile
from routing.reference.accuracy import loaded
from storage.imdf.dataset import ImdfDataset
from storage.osm.dataset import osm_dataset
from tests.routing.imdf import hard_venue
from tests.routing.imdf.westport_walks import WALKED
from tests.venues import osm_places
from tests.venues.bilingual_clinic import bilingual_clinic
from tests.venues.crooked_arcade import crooked_arcade
from tests.venues.dead_ends import dead_ends, odd_corners
from tests.venues.food_hall import food_hall
from tests.venues.hk_clinic import hk_clinic
from tests.venues.imdf_shared_ordinals import harbour_station
from tests.venues.imdf_venues import Venue, cloister, two_levels
from tests.venues.old_market import old_market
from tests.venues.osm_station import write_station
from tests.venues.run_cache import shared_venue_dataset
from tests.venues.stack_maps import stack_graph
from tests.venues.westport_imdf import westport

BATCH = 50  # targets a request: E18's bound
MODES = {"foot": FOOT, "wheelchair": WHEELCHAIR}


def _imdf(venue: Venue, options: ImdfOptions | None = None) -> ImdfDataset:
    """Converted once per run under xdist (tests/venues/run_cache.py): other modules
    convert the same venues."""
    return shared_venue_dataset(venue.files(), options or ImdfOptions())


def _saint_laurent() -> ImdfDataset:
    """Our own OSM station (tests/venues/osm_station.py), converted from a file written
    to a folder that is gone once it is read."""
    with tempfile.TemporaryDirectory() as folder:
        return osm_dataset(write_station(Path(folder)), ImdfOptions())


VENUES: dict[str, Callable[[], ImdfDataset]] = {
    "caserne": lambda: osm_places.place_dataset(osm_places.CASERNE),
    "grand-place": lambda: osm_places.place_dataset(osm_places.MALL),
    "gare-de-l-est": lambda: osm_places.place_dataset(osm_places.STATION),
    "gare-de-saint-laurent": _saint_laurent,
    "westport": lambda: _imdf(westport().venue, ImdfOptions(units=WALKED)),
    "harbour": lambda: _imdf(harbour_station().venue),
    "harbour-terrace-cut": lambda: _imdf(harbour_station(terrace_joined=False).venue),
    "bilingual-clinic": lambda: _imdf(bilingual_clinic().venue),
    "hk-clinic": lambda: _imdf(hk_clinic().venue),
    "food-hall": lambda: _imdf(food_hall().venue),
    "old-market": lambda: _imdf(old_market()[0]),
    "dead-ends": lambda: _imdf(dead_ends()[0]),
    "odd-corners": lambda: _imdf(odd_corners()[0]),
    "crooked-arcade": lambda: _imdf(crooked_arcade().venue),
    "two-levels": lambda: _imdf(two_levels().venue),
    "cloister": lambda: _imdf(cloister().venue),
    "hard": lambda: _imdf(hard_venue.venue()),
}


@cache
def dataset_of(name: str) -> ImdfDataset:
    return VENUES[name]()


@cache
def graph_of(name: str) -> LoadedGraph:
    """The stack map's walk graph, as E18 loads it; built once per run under xdist (a
    venue's tests may run on two workers)."""
    dataset = dataset_of(name)
    graph = stack_graph(dataset.svgs[dataset.stack_map])
    assert graph is not None
    return loaded(graph)


def unit_points(name: str) -> dict[str, Point]:
    """Each listed unit's location on the stack map, as E18 places it: its point on the
    level of its first floor (the graph's level order)."""
    dataset, graph = dataset_of(name), graph_of(name)
    level = {floor: n for n, floor in enumerate(graph.graph.level_floors)}
    found: dict[str, Point] = {}
    for location in dataset.data["locations"]:
        tags = {tag["key"]: tag["value"] for tag in location.get("tags", [])}
        if location["unit_map_id"] == dataset.stack_map and tags.get("svc:type") == "unit":
            floor = location["floors"][0]["id"]
            found[tags["svc:id"]] = Point(float(location["x"]), float(location["y"]), level[floor])
    return found


@cache
def routed(name: str) -> dict[str, tuple[set[str], set[str]]]:
    """Per mode: the listed units the report reaches, and those E18 routes to from the
    first of them by id (itself included)."""
    dataset = dataset_of(name)
    reach = dataset.reachability
    assert reach is not None
    graph, points = graph_of(name), unit_points(name)
    units = sorted(points)
    found: dict[str, tuple[set[str], set[str]]] = {}
    for mode, profile in MODES.items():
        reported = set(units) - {u.unit_id for u in reach.unreachable if mode in u.modes}
        reached: set[str] = set()
        if reported:
            source = min(reported)
            reached.add(source)
            for start in range(0, len(units), BATCH):
                batch = units[start : start + BATCH]
                targets = [points[u] for u in batch]
                [row] = graph.matrix(Profile(profile), [points[source]], targets)
                reached |= {u for u, cell in zip(batch, row, strict=True) if cell is not None}
        found[mode] = (reported, reached)
    return found


@pytest.mark.parametrize("name", list(VENUES))
@pytest.mark.parametrize("mode", list(MODES))
def test_a_unit_is_reported_reachable_exactly_when_a_route_reaches_it(name: str, mode: str) -> None:
    """Both ways, with the names of the units where the two part."""
    reported, reached = routed(name)[mode]
    names = {u["id"]: u["name"] for u in dataset_of(name).data["units"]}
    assert (mode, sorted(names[u] for u in reported - reached)) == (mode, [])
    assert (mode, sorted(names[u] for u in reached - reported)) == (mode, [])
    assert reported, "the report reaches no listed unit"


@pytest.mark.parametrize("name", list(VENUES))
def test_every_unit_no_route_reaches_has_a_reason_a_mapper_can_act_on(name: str) -> None:
    reach = dataset_of(name).reachability
    assert reach is not None
    for entry in reach.unreachable:
        assert entry.reason in REASONS
        assert len(entry.detail) > 20 and entry.detail[0].islower(), entry


def reasons(name: str, level: str) -> dict[str, tuple[tuple[str, ...], str, str]]:
    """The units the report lists on a level (by its short label): name -> modes,
    reason, sentence."""
    dataset = dataset_of(name)
    reach = dataset.reachability
    assert reach is not None
    floor = next(f["id"] for f in dataset.data["floors"] if f["short_label"] == level)
    return {u.name: (u.modes, u.reason, u.detail) for u in reach.unreachable if u.level == floor}


def test_the_caserne_shops_on_a_corridor_of_their_own_are_named_with_their_entrance() -> None:
    """Monoprix and Naturalia open onto their own corridor (way/562670861), 11 m from the
    mall's, entered from the street at node/2786083364: the report used to count them
    reached through that entrance while no route from the mall leads there."""
    found = reasons("caserne", "0")
    sentence = (
        "the 3 units it is among ('Monoprix', 'Naturalia' and 1 more) are entered from "
        "outside through their own opening caserne-node-2786083364 of 'Walkway 3', but no "
        "opening or connector joins them to the rest of the venue, and a route never goes "
        "outside: draw the door or corridor between them and the rest"
    )
    for shop in ("Monoprix", "Naturalia", "Walkway 3"):
        assert found[shop] == (("foot", "wheelchair"), "own-entrance", sentence)
    _, reached = routed("caserne")["foot"]
    names = {u["id"]: u["name"] for u in dataset_of("caserne").data["units"]}
    assert {"Monoprix", "Naturalia"} & {names[u] for u in reached} == set()


def test_a_terrace_with_its_own_gate_but_no_way_from_inside_is_cut_off() -> None:
    """Harbour Station with the door between the concourse and its Sun Terrace left out:
    the terrace's gate lets people in from the street, but no route from the station."""
    found = reasons("harbour-terrace-cut", "T")
    assert sorted(found) == ["Ice Cream Kiosk", "Terrace Lawn"]
    modes, reason, detail = found["Ice Cream Kiosk"]
    assert (modes, reason) == (("foot", "wheelchair"), "level-cut-off")
    assert detail.startswith(
        "no stairs, elevator, escalator or ramp reaches 'Sun Terrace' from the levels "
        "reached (its opening "
    )
    assert detail.endswith("lets people in from outside, but a route never goes outside)")
    assert reasons("harbour", "T") == {}


def test_rooms_drawn_inside_the_station_hall_are_joined_by_their_doors() -> None:
    """Gare de l'Est's ticket office and information point are drawn inside the hall
    (way/228067) with doors of their own: the opening meets both the hall and the room
    drawn over it, and the smaller is the room's side, as the walk network takes it."""
    found = reasons("gare-de-l-est", "0")
    assert "Tickets Paris & IdF" not in found
    assert "Point Information - Paris & IdF" not in found
    # the hall "La Place" is entered at node/227901, a door the data joins to nothing else
    assert found["La Place"][1:] == (
        "own-entrance",
        "it is entered from outside through its own opening gare-de-l-est-node--227901 of "
        "'La Place', but no opening or connector joins it to the rest of the venue, and a "
        "route never goes outside: draw the door or corridor between it and the rest",
    )


def test_a_doorless_unit_too_thin_for_lines_routes_nowhere() -> None:
    """The Crooked Arcade's 5 cm sliver and its unit of no area have no door and no room
    for walk lines: each gets a stub at its point, so a route to it finds nothing (it
    used to join the arcade's line beside it), as the report's no-opening says, while a
    room with a door routes."""
    found = reasons("crooked-arcade", "G")
    for name in ("Sliver", "Zero-Area"):
        assert found[name][:2] == (("foot", "wheelchair"), "no-opening")
    points = unit_points("crooked-arcade")
    names = {u["id"]: u["name"] for u in dataset_of("crooked-arcade").data["units"]}
    by_name = {names[u]: point for u, point in points.items()}
    targets = [by_name[n] for n in ("Sliver", "Zero-Area", "Duplicates")]
    [row] = graph_of("crooked-arcade").matrix(Profile(FOOT), [by_name["Spike"]], targets)
    assert row[:2] == [None, None]
    assert row[2] is not None  # a room with a door on the arcade: routed


def test_westport_wings_with_their_own_doors_are_listed_with_them() -> None:
    """Westport House's ground floor: five walkways behind their own street doors that no
    opening joins to the house (three more alone), and a wing a wheelchair enters from
    outside but reaches from the house only by the stairs. All were counted reached
    from their doors; no route from the house reached them."""
    found = reasons("westport", "G")
    own = {n: v[0] for n, v in found.items() if v[1] == "own-entrance"}
    walked = [f"Walkway {n}" for n in (12, 14, 16, 20, 23, 6, 8, 9)]
    wing = ["Elevator 3", "Restroom 1", "Restroom 2", "Walkway 2", "Walkway 4", "Walkway 7"]
    assert own == {
        **dict.fromkeys(walked, ("foot", "wheelchair")),
        **dict.fromkeys(wing, ("wheelchair",)),
    }
    assert found["Restroom 1"][2] == (
        "the opening 6eef2c66-c360-5caa-9eab-8671ffa17210 of 'Walkway 2', opening "
        "d1dae3ee-53e4-570f-b4e3-b4f7f1238dcd of 'Walkway 4' let a wheelchair in from "
        "outside, but every way inside from the rest of the venue passes what a "
        "wheelchair cannot: stairs 'Stairs 4' (a route never goes outside)"
    )
