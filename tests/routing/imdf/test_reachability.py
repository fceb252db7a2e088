"""Unreachable units explained, found without a database (issue 35, point 4): every
walked unit that cannot be reached on foot or by wheelchair has its reason (an opening
for vehicles only, none on its outline, a lift that opens only onto steps...), and a
step-free connector never stands in a stairs unit. The terminal summary, `--report
FILE` and E18 through the same venues are tested in tests/storage/imdf/test_unreachable.py."""

from __future__ import annotations

from shapely import box

from parsing.imdf.contents import unit_contents
from parsing.imdf.names import name_units
from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions
from parsing.imdf.venue import Venue as ImdfVenue
from routing.imdf.connectors import connectors
from routing.imdf.model import Space, Traversal
from routing.imdf.reachability import Reachability, reachability
from routing.imdf.walks import build_network, read_doors
from tests.venues.dead_ends import dead_ends, odd_corners
from tests.venues.imdf_venues import Venue, rect, two_levels

BOTH, FOOT, CHAIR = ("foot", "wheelchair"), ("foot",), ("wheelchair",)


def reach_of(venue: Venue) -> Reachability:
    """What the import finds reachable in the venue, as `venue_dataset` finds it: the
    archive read, its units named, its doors read and walked, then reached."""
    options = ImdfOptions()
    built = ImdfVenue(read_archive(venue.files()), options)
    name_units(built, unit_contents(built))
    doors = read_doors(built)
    network = build_network(built, doors, options)
    return reachability(built, doors, network, options.snap_tolerance)


def entries(reach: Reachability) -> list[tuple[str, str, tuple[str, ...], str]]:
    return [(u.name, u.level_name, u.modes, u.reason) for u in reach.unreachable]


def test_the_three_situations_of_the_issue():
    """Stairs reachable only through an automobile opening (and the gallery they lead
    to), an open-plan unit with no opening, a lift that opens only onto steps: the
    upper hall and office are reached on foot, not by wheelchair."""
    venue, ids = dead_ends()
    reach = reach_of(venue)
    assert (reach.roots, reach.entrances) == ("entrances", [ids["entrance"]])
    by_level = sorted(entries(reach), key=lambda e: (e[1], e[0]))
    assert by_level == [
        ("Open Plan", "Ground", BOTH, "no-opening"),
        ("West Stairs", "Ground", FOOT, "only-vehicle-openings"),
        ("Gallery", "Upper", BOTH, "only-vehicle-openings"),
        ("Office", "Upper", CHAIR, "connector-dead-end"),
        ("Upper Hall", "Upper", CHAIR, "connector-dead-end"),
        ("West Stairs", "Upper", FOOT, "only-vehicle-openings"),
    ]
    details = {(u.name, u.level_name): u.detail for u in reach.unreachable}
    assert details[("Open Plan", "Ground")] == (
        "no opening is drawn on its outline (an open-plan unit drawn without doors, "
        "or doors missing from the archive)"
    )
    assert details[("Gallery", "Upper")] == (
        "the 3 units it is among are joined to the rest only through opening "
        f"{ids['ramp']} of 'Car Park' and 'West Stairs' (category automobile): "
        "for vehicles, not people"
    )
    assert details[("Office", "Upper")] == (
        "elevator 'Lift' opens on 'Upper' only into stairs 'Steps': a wheelchair cannot go on"
    )


def test_every_other_reason():
    venue, ids = odd_corners()
    reach = reach_of(venue)
    assert sorted(entries(reach), key=lambda e: (e[1], e[0])) == [
        ("Annex", "Floor 0", BOTH, "island"),
        ("Back Room", "Floor 0", BOTH, "behind-closed-units"),
        ("East Room", "Floor 0", BOTH, "island"),
        ("Far Room", "Floor 0", BOTH, "opening-not-joined"),
        ("Lounge", "Floor 0", CHAIR, "not-step-free"),
        ("Room 0", "Floor 0", BOTH, "only-closed-openings"),
        ("Hall 1", "Floor 1", CHAIR, "level-cut-off"),
        ("Room 1", "Floor 1", CHAIR, "level-cut-off"),
        ("Hall 2", "Floor 2", BOTH, "level-cut-off"),
        ("Room 2", "Floor 2", BOTH, "level-cut-off"),
    ]
    details = {u.name: u.detail for u in reach.unreachable}
    assert details["Lounge"] == (
        "every way to it passes what a wheelchair cannot: "
        f"opening {ids['revolving']} of 'Hall 0' and 'Lounge' (revolving door)"
    )
    assert (
        details["Back Room"] == "its openings lead only into units not walked: 'Store' (nonpublic)"
    )
    assert details["Far Room"] == (
        f"its opening {ids['far door']} of 'Far Room' joins no other walked unit "
        "(beside the unit, or farther than the snap tolerance)"
    )
    assert details["Hall 1"] == (
        "no elevator or ramp reaches 'Floor 1' step-free (only stairs or escalators)"
    )
    assert details["Hall 2"] == (
        "no stairs, elevator, escalator or ramp reaches 'Floor 2' from the levels reached"
    )
    assert details["Annex"] == (
        "its openings lead only among 2 units cut off from the rest ('East Room', 'Annex'); "
        "no opening or connector joins them to the rest"
    )


def test_without_an_entrance_the_largest_part_is_reached():
    """The test hall has no exterior door: its locked rooms are what is left out."""
    reach = reach_of(two_levels().venue)
    assert reach.roots == "largest-part"
    assert entries(reach) == [
        ("Room C0", "Level 0", BOTH, "only-closed-openings"),
        ("Room C1", "Level 1", BOTH, "only-closed-openings"),
    ]


def test_openings_across_the_wall_join_and_thick_walls_are_no_entrance():
    """A door drawn across the wall (along the way through it) joins the units its middle
    lies on, as the walk network joins it. A door 0.45 m off the hall's wall with a
    yard 1.05 m beyond it is in a thick wall, no entrance (nothing for 2 m beyond would
    make it one); a door inside one unit neither. Reaching starts at the largest part."""
    v = Venue("Walls")
    outline = [(-5, -5), (20, -5), (20, 20), (-5, 20)]
    v.venue("Walls", outline)
    level = v.level("W0", 0, "Ground", "G", outline)
    v.unit("hall", level, "walkway", rect(0, 0, 10, 3), name="Hall")
    v.unit("room", level, "room", rect(0, 3, 4, 7), name="Room")
    v.unit("yard", level, "room", rect(11.5, 0, 14, 3), name="Yard")
    v.unit("bend", level, "walkway", [(0, 8), (10, 8), (10, 12), (6, 12), (6, 9), (0, 9)])
    v.opening("across", level, (2, 2.9), (2, 3.1))  # perpendicular to the wall
    v.opening("thick", level, (10.45, 1), (10.45, 2))
    v.opening("inside", level, (6, 8.5), (7, 8.5))  # a line inside the bend
    reach = reach_of(v)
    assert (reach.roots, reach.entrances) == ("largest-part", [])
    assert entries(reach) == [
        ("Walkway 1", "Ground", BOTH, "opening-not-joined"),
        ("Yard", "Ground", BOTH, "no-opening"),
    ]


def test_a_step_free_connector_never_stands_in_stairs():
    """An elevator relationship naming a stairs unit: no stop there (a wheelchair would
    join the nearest line it may use beyond the stairs), reported; the lift keeps its
    stops on the levels where it stands in a lift."""
    spaces = [
        Space("lift0", "L0", box(0, 0, 2, 2), True, True, "elevator", None),
        Space("lift1", "L1", box(0, 0, 2, 2), True, True, "elevator", None),
        Space("stairs2", "L2", box(0, 0, 2, 2), True, False, "stairs", None),
    ]
    traversal = Traversal("lift", "elevator", ("lift0", "lift1", "stairs2"))
    stops, problems = connectors(spaces, spaces, [traversal], ["L0", "L1", "L2"])
    assert [(s.connector_id, s.kind, s.level) for s in stops] == [
        ("lift", "elevator", "L0"),
        ("lift", "elevator", "L1"),
    ]
    assert problems == [
        (
            "connector-not-step-free",
            "elevator lift: unit stairs2 is not step-free (stairs), no stop there",
        )
    ]
