"""Fine Folds: an IMDF venue of our own whose unit polygons are valid in metres and break
only on the drawing's grid (issue 65, point 1), and a bow-tie room the reader repairs
into two triangles (point 2), for the drawing's tests.

The drawing writes canvas units (5 cm) to 3 decimals, a grid of 0.05 mm: a spike whose
base is 0.002 mm wide folds onto one column there, a hole 0.002 mm inside its wall
meets the wall along its side, and a room 0.01 mm deep has no area left. Written in
WGS84 at full precision (`Venue.lon_lat` keeps 1e-10 degrees, about 0.01 mm here,
which would break them before the drawing does).
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.venues.imdf_venues import Venue, rect

NAME = "Fine Folds"
OUTLINE = rect(0, 0, 60, 16)
CORRIDOR = rect(0, 0, 60, 4)
XY = tuple[float, float]

# Valid in metres, invalid once drawn: a spike 0.002 mm wide, a hole 0.002 mm from the
# east wall; and a room too thin to keep (0.01 mm deep).
SPIKE: list[XY] = [(12, 4), (22, 4), (22, 14), (17.000001, 14), (17, 16), (16.999999, 14), (12, 14)]
HOLE_NEAR = (rect(24, 4, 34, 14), rect(28, 8, 33.999998, 10))
HAIRLINE = rect(36, 4, 40, 4.00001)
# Invalid as written: the reader repairs it into two triangles of 25 m² each.
BOWTIE: list[XY] = [(42, 4.0), (52, 14), (52, 4), (42, 14)]


@dataclass
class FineFolds:
    venue: Venue
    level: str
    units: dict[str, str]  # key -> IMDF unit id


def _exact_ring(venue: Venue, points: list[XY]) -> list[list[float]]:
    """A ring in WGS84 without `Venue.lon_lat`'s rounding."""
    coords = [list(venue._to_wgs84.transform(x, y)) for x, y in points]
    return [*coords, coords[0]]


def fine_folds() -> FineFolds:
    venue = Venue(NAME, origin=(4.3517, 50.8466))  # Brussels
    venue.venue(NAME, OUTLINE)
    level = venue.level("ff0", 0, "Ground", "G", OUTLINE)
    units = {"corridor": venue.unit("ff-corridor", level, "walkway", CORRIDOR, name="Passage")}
    shapes: dict[str, tuple[list[XY], ...]] = {
        "spike": (SPIKE,),
        "hole-near": HOLE_NEAR,
        "hairline": (HAIRLINE,),
        "bowtie": (BOWTIE,),
    }
    for key, rings in shapes.items():
        units[key] = venue.unit(f"ff-{key}", level, "room", rings[0], name=key.title())
        geometry = venue.features["unit"][-1]["geometry"]
        geometry["coordinates"] = [_exact_ring(venue, ring) for ring in rings]
    for key, x in {"spike": 14, "hole-near": 26}.items():
        venue.opening(f"ff-{key}", level, (x, 4), (x + 1, 4))
    return FineFolds(venue, level, units)
