"""Which units an IMDF opening joins (routing/imdf/doors.py `match_doors`), where real
archives draw it a little off: a unit that meets the door's line only in a thin sliver,
and a door line drawn a couple of centimetres inside one of its units (issue 48: the
Westport House lobby and storage cupboard, tests/storage/imdf/test_westport.py)."""

from __future__ import annotations

from shapely import LineString, Polygon, box

from routing.imdf.doors import match_doors
from routing.imdf.model import Door, Space


def unit(ident: str, shape: Polygon) -> Space:
    return Space(ident, "L0", shape, True, True, None, None)


def joined(spaces: list[Space], a: tuple[float, float], b: tuple[float, float]) -> list[str]:
    door = Door("door", "L0", LineString([a, b]), True, True)
    [(_, found)] = list(match_doors(spaces, [door], 0.5))
    return sorted(space.id for space, _, _ in found)


def test_a_lobby_reaching_the_door_in_a_sliver_is_its_side_not_the_lift_beyond() -> None:
    """Stairs (0-3 x 0-6) open along their south side; the lobby east of them reaches
    under them in a 2 cm strip, the lift's wall is 0.3 m further south. The door line,
    drawn 5 mm inside the stairs, is 5 mm from both the stairs' and the lobby's edge: a
    point probe 5 cm out finds nothing of the lobby (it took the lift); its area does."""
    stairs = unit("stairs", box(0, 0, 3, 6))
    lobby = unit("lobby", Polygon([(0, -0.02), (6, -0.02), (6, 6), (3, 6), (3, 0), (0, 0)]))
    lift = unit("lift", box(0, -2.3, 3, -0.3))
    assert joined([stairs, lobby, lift], (3, 0.005), (0, 0.005)) == ["lobby", "stairs"]
    assert joined([stairs, lift], (3, 0.005), (0, 0.005)) == ["lift", "stairs"]


def test_a_door_drawn_inside_a_room_joins_it_and_the_room_beyond() -> None:
    """The line 2 cm inside the small room: both rooms' nearest points are the shared
    wall's, on the same side of the line; the room holding the line is on the other."""
    small, large = unit("small", box(0, 0, 4, 4)), unit("large", box(0, 4, 6, 10))
    assert joined([small, large], (1, 3.98), (2.8, 3.98)) == ["large", "small"]
    assert joined([large, small], (2.8, 3.98), (1, 3.98)) == ["large", "small"]


def test_a_spike_of_a_ring_along_the_door_is_no_side() -> None:
    """A unit cut around a room keeps a spike a fraction of a millimetre thick along the
    room's edge (what cutting a nested room leaves), its body 0.5 m away: the spike's
    area, on the room's side of the line drawn 0.1 mm off, is no side, so the unit is
    joined beside the room as a unit on the line."""
    room = unit("room", box(2, 0, 5, 3))
    ring = [(0, 6), (0, 3), (5, 3), (2e-4, 3 + 2e-4), (2e-4, 3.5), (8, 3.5), (8, 6)]
    around = unit("around", Polygon(ring))
    assert around.shape.is_valid
    assert joined([room, around], (2.5, 3 + 1e-4), (4.5, 3 + 1e-4)) == ["around", "room"]


def test_a_door_across_the_wall_joins_the_units_at_its_ends() -> None:
    """Drawn along the way through the wall (perpendicular to it): both units are on the
    line, neither on a side, and both are joined."""
    hall, room = unit("hall", box(0, 0, 10, 3)), unit("room", box(0, 3, 4, 7))
    assert joined([hall, room], (2, 2.9), (2, 3.1)) == ["hall", "room"]


def test_a_door_in_the_wall_of_a_room_drawn_inside_a_hall_opens_into_the_room() -> None:
    """A ticket office drawn inside a larger room, on its north wall (Gare de l'Est,
    issue 65): both are on the door's south side at the same distance; the office, the
    smaller, is what the door opens into, whatever the ids' order (the hall took it, and
    the office's walk to the concourse went out of its other door and round: 2.67x)."""
    hall, office = unit("a-hall", box(0, 0, 10, 6)), unit("z-office", box(0, 2, 4, 6))
    concourse = unit("concourse", box(0, 6, 10, 12))
    assert joined([hall, office, concourse], (1, 6), (2, 6)) == ["concourse", "z-office"]
    assert joined([office, concourse, hall], (2, 6), (1, 6)) == ["concourse", "z-office"]
    # a door on the hall's own wall is the hall's
    assert joined([hall, office, concourse], (6, 6), (7, 6)) == ["a-hall", "concourse"]


def test_an_opening_drawn_down_the_edge_of_a_strip_joins_the_strip() -> None:
    """An opening derived as a polyline along the hall's edge (Gare de l'Est), the strip
    beside it notched at the opening's middle (a pillar): the strip's nearest point to
    the middle lies 5 cm along the opening, as a partition wall's would, yet the strip
    lies along all the rest of it, so it is the other side (it was joined to the hall
    alone, and walks into the strip went round: 1.60x)."""
    hall = unit("hall", box(0, 0, 10, 5))
    notch = [(3.95, 5), (3.95, 5.2), (4.05, 5.2), (4.05, 5)]
    strip = unit("strip", Polygon([(0, 5), *notch, (10, 5), (10, 5.3), (0, 5.3)]))
    line = LineString([(2, 5), (3, 5), (5, 5), (6, 5)])
    [(_, found)] = list(match_doors([hall, strip], [Door("d", "L0", line, True, True)], 0.5))
    assert sorted(space.id for space, _, _ in found) == ["hall", "strip"]
    # a room beside an ordinary door, meeting its line at one end, is still not joined
    side = unit("side", box(6, 5, 9, 8))
    assert joined([hall, side], (4, 5), (6, 5)) == ["hall"]
