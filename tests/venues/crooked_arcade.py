"""Crooked Arcade: an IMDF venue of our own whose unit polygons are irregular as real
archives' are (issue 65, point 1), for the import and tiles tests.

One level, a corridor along the south and a row of rooms north of it, each broken in
its own way. Some are invalid as written (the importer repairs them when it reads the
archive: `invalid polygon, repaired` in its report); some are valid as written and
become invalid only on the GeoJSON's 1e-7 degree grid (about 7 mm east-west and 11 mm
north-south here): the import repairs them where it stores them and names them in the
map's note. Drawn in metres, written in WGS84 as tests/venues/imdf_venues.py writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.venues.imdf_venues import Venue, rect

NAME = "Crooked Arcade"
OUTLINE = rect(0, 0, 84, 16)
CORRIDOR = rect(0, 0, 84, 4)
XY = tuple[float, float]

# Invalid as written: the importer repairs them when it reads the archive.
BOWTIE = [(0, 4), (10, 14), (10, 4), (0, 14)]  # crossing itself, equal halves
HOLE_ACROSS = (rect(12, 4, 22, 14), rect(11, 8, 15, 10))  # the hole pokes out west
ZERO_AREA = [(24, 4), (28, 4), (32, 4)]  # three points in a line
# Valid as written, broken on the grid: a spike 0.2 mm wide (its sides round onto one
# column), a hole 2 mm inside the east wall (its side rounds onto the wall).
SPIKE = [(34, 4), (44, 4), (44, 14), (39.0021, 14), (39.002, 16), (39.0019, 14), (34, 14)]
HOLE_NEAR = (rect(46, 4, 56, 14), rect(50, 8, 55.998, 10))
# Valid everywhere: kept as they are.
SLIVER = rect(58, 4, 62, 4.05)  # 5 cm deep
DUPLICATES = [(64, 4), (64, 4), (74, 4), (74, 14), (74, 14), (64, 14)]
HOLE_TOUCHING = (rect(76, 4, 84, 14), [(76, 9), (80, 8), (80, 10)])  # meets the shell at a point


@dataclass
class CrookedArcade:
    venue: Venue
    level: str
    units: dict[str, str]  # key -> IMDF unit id


def crooked_arcade() -> CrookedArcade:
    venue = Venue(NAME, origin=(4.3517, 50.8466))  # Brussels
    venue.venue(NAME, OUTLINE)
    level = venue.level("ca0", 0, "Ground", "G", OUTLINE)
    units = {"corridor": venue.unit("ca-corridor", level, "walkway", CORRIDOR, name="Arcade")}
    plain = {"bowtie": BOWTIE, "zero-area": ZERO_AREA, "spike": SPIKE}
    plain |= {"sliver": SLIVER, "duplicates": DUPLICATES}
    holed = {"hole-across": HOLE_ACROSS, "hole-near": HOLE_NEAR, "hole-touching": HOLE_TOUCHING}
    for key, points in {**plain, **{k: shell for k, (shell, _) in holed.items()}}.items():
        units[key] = venue.unit(f"ca-{key}", level, "room", points, name=key.title())
        if key in holed:
            shell, hole = holed[key]
            ring = venue.polygon(shell)["coordinates"][0]
            venue.features["unit"][-1]["geometry"]["coordinates"] = [ring, venue.ring(hole)]
    for key, x in {"spike": 36, "hole-near": 48, "duplicates": 66, "hole-touching": 82}.items():
        venue.opening(f"ca-{key}", level, (x, 4), (x + 1, 4))
    return CrookedArcade(venue, level, units)
