"""Venues of our own with units a person cannot reach (issue 35, point 4), one of each
reason `routing/imdf/reachability.py` gives, drawn in metres (x east, y north)."""

from __future__ import annotations

from tests.venues.imdf_venues import Venue, rect

OUTLINE = [(-1, -11), (31, -11), (31, 13), (-1, 13)]


def dead_ends() -> tuple[Venue, dict[str, str]]:
    """Two levels. Ground: a hall with the entrance at its west end, a shop, an open-plan
    unit drawn without an opening, a car park, west stairs whose only opening is the car
    park's automobile ramp, and a lift. Upper: the west stairs open into a gallery; the
    lift opens only onto three steps down to the upper hall, off which is the office.
    The lift has a relationship; the west stairs are found by overlap."""
    v = Venue("Dead Ends")
    v.venue("Dead Ends", OUTLINE)
    ground = v.level("D0", 0, "Ground", "G", OUTLINE)
    upper = v.level("D1", 1, "Upper", "U", OUTLINE)
    u = {
        "hall": v.unit("hall", ground, "walkway", rect(0, 0, 30, 4), name="Hall"),
        "shop": v.unit("shop", ground, "room", rect(0, 4, 6, 10), name="Shop"),
        "open": v.unit("open", ground, "room", rect(6, 4, 12, 10), name="Open Plan"),
        "park": v.unit("park", ground, "parking", rect(0, -10, 20, 0), name="Car Park"),
        "stairs0": v.unit("stairs0", ground, "stairs", rect(20, -6, 24, -2), name="West Stairs"),
        "lift0": v.unit("lift0", ground, "elevator", rect(24, -4, 27, 0), name="Lift"),
        "stairs1": v.unit("stairs1", upper, "stairs", rect(20, -6, 24, -2), name="West Stairs"),
        "gallery": v.unit("gallery", upper, "room", rect(14, -6, 20, -2), name="Gallery"),
        "lift1": v.unit("lift1", upper, "elevator", rect(24, -4, 27, 0), name="Lift"),
        "steps": v.unit("steps", upper, "steps", rect(24, 0, 27, 2), name="Steps"),
        "hall1": v.unit("hall1", upper, "walkway", rect(0, 2, 30, 6), name="Upper Hall"),
        "office": v.unit("office", upper, "room", rect(0, 6, 6, 12), name="Office"),
    }
    u["entrance"] = v.opening("entrance", ground, (0, 1), (0, 2), category="pedestrian.principal")
    v.opening("shop", ground, (2, 4), (3, 4))
    v.opening("park", ground, (5, 0), (6, 0))
    u["ramp"] = v.opening("ramp", ground, (20, -5), (20, -4), category="automobile")
    v.opening("lift0", ground, (25, 0), (26, 0))
    v.opening("gallery", upper, (20, -5), (20, -4))
    v.opening("lift1", upper, (25, 0), (26, 0))
    v.opening("steps", upper, (25, 2), (26, 2))
    v.opening("office", upper, (2, 6), (3, 6))
    u["lift"] = v.relationship("lift", "elevator", [u["lift0"], u["lift1"]])
    return v, u


def odd_corners() -> tuple[Venue, dict[str, str]]:
    """Three levels, each with a hall (0-24 m x 0-4 m). Ground: the entrance at the
    hall's west end; a locked room; a back room whose only door leads into a nonpublic
    store; two rooms joined to each other only; a room behind a revolving door; a room
    whose one opening lies 0.52 m off its wall (beyond the 0.5 m snap); stairs up.
    First: the stairs down and a room. Second: a hall and a room, no stairs or lift."""
    outline = [(-1, -5), (25, -5), (25, 9), (-1, 9)]
    v = Venue("Odd Corners")
    v.venue("Odd Corners", outline)
    levels = [v.level(f"O{n}", n, f"Floor {n}", f"F{n}", outline) for n in range(3)]
    u: dict[str, str] = {}
    for n, level in enumerate(levels):
        u[f"hall{n}"] = v.unit(f"hall{n}", level, "walkway", rect(0, 0, 24, 4), name=f"Hall {n}")
        u[f"room{n}"] = v.unit(f"room{n}", level, "room", rect(0, 4, 4, 8), name=f"Room {n}")
        v.opening(
            f"room{n}",
            level,
            (1, 4),
            (2, 4),
            **({"access_control": ["keyaccess"]} if n == 0 else {}),
        )
    ground, first = levels[0], levels[1]
    v.opening("entrance", ground, (0, 1), (0, 2))
    u["back"] = v.unit("back", ground, "room", rect(4, 4, 8, 8), name="Back Room")
    u["store"] = v.unit("store", ground, "nonpublic", rect(8, 4, 12, 8), name="Store")
    v.opening("store", ground, (9, 4), (10, 4))
    v.opening("back", ground, (8, 5), (8, 6))
    u["east"] = v.unit("east", ground, "room", rect(12, 4, 16, 8), name="East Room")
    u["annex"] = v.unit("annex", ground, "room", rect(16, 4, 20, 8), name="Annex")
    v.opening("annex", ground, (16, 5), (16, 6))
    u["lounge"] = v.unit("lounge", ground, "room", rect(0, -4, 4, 0), name="Lounge")
    u["revolving"] = v.opening(
        "revolving", ground, (1, 0), (2, 0), door={"type": "revolving", "automatic": True}
    )
    u["far"] = v.unit("far", ground, "room", rect(20, 4, 24, 8), name="Far Room")
    u["far door"] = v.opening("far", ground, (21, 8.52), (22, 8.52))
    for n, level in ((0, ground), (1, first)):
        u[f"stairs{n}"] = v.unit(f"stairs{n}", level, "stairs", rect(20, -4, 24, 0), name="Stairs")
        v.opening(f"stairs{n}", level, (21, 0), (22, 0))
    return v, u
