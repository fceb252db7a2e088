"""A bilingual IMDF venue of our own (issue 51): Lung Wan Community Clinic, a small
Hong Kong-style public clinic named in English and Traditional Chinese as the Hong Kong
government's IMDF venues are (`{"en": "...", "zh-Hant": "..."}`), with the irregular
things real data has. Built in code; no licence applies (the layout and names are ours).

Three levels (G/F, 1/F, 2/F), 30 m x 20 m, metres x east and y north. On each a corridor
(y 8..12, drawn only) runs the whole width; rooms face it north (y 12..20) and south
(y 0..8), each with a door on it; the lift (x 12..15) and the stairs (x 15..19) stand
south of it on every level, joined by relationships; the main entrance is at the west
end of the G/F corridor.

- G/F: the Waiting Hall (whose Chinese key is written `zh_hant`, as some exporters do),
  room G02 holding the Community Pharmacy (its one occupant names it), two
  Consultation Rooms (the same name in both languages), an unnamed restroom (a
  generated name), the Entrance Lobby with an Enquiry Counter amenity, the X-ray Room
  (English only) and the Physiotherapy Room; a drinking fountain in the corridor named
  in Chinese only (`飲水機`).
- 1/F: Maternal and Child Health Centre (an occupant of the room), the Dental Clinic,
  two rooms called `Office` in English but not in Chinese (`辦公室`, `會計室`), a
  Multi-purpose Room, an unnamed female restroom, a baby care room amenity.
- 2/F: the Community Hall and a store room named in Chinese only (`儲物室`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from tests.venues.imdf_venues import Label, Venue, level_properties, rect, stable_id, zip_bytes

ORIGIN = (114.1812, 22.2799)  # lon, lat: Hong Kong Island
OUTLINE = rect(0, 0, 30, 20)
NAME = {"en": "Lung Wan Community Clinic", "zh-Hant": "龍灣社區診所"}
LIFT, STAIRS = (12.0, 0.0, 15.0, 8.0), (15.0, 0.0, 19.0, 8.0)
Box = tuple[float, float, float, float]
OWN = "lung-wan-"  # starts each feature's key: ids of its own

# key -> ordinal, name, short name
LEVELS: dict[str, tuple[int, Label, Label]] = {
    "G": (0, {"en": "Ground Floor", "zh-Hant": "地下"}, {"en": "G/F", "zh-Hant": "地下"}),
    "1": (1, {"en": "First Floor", "zh-Hant": "一樓"}, {"en": "1/F", "zh-Hant": "一樓"}),
    "2": (2, {"en": "Second Floor", "zh-Hant": "二樓"}, {"en": "2/F", "zh-Hant": "二樓"}),
}
CORRIDOR: Label = {"en": "Corridor", "zh-Hant": "走廊"}
# level key -> rooms: (key, category, name or None, box); each has a door on the corridor
ROOMS: dict[str, list[tuple[str, str, Label | None, Box]]] = {
    "G": [
        ("waiting", "waitingroom", {"en": "Waiting Hall", "zh_hant": "候診大堂"}, (0, 12, 8, 20)),
        ("g02", "room", {"en": "Room G02", "zh-Hant": "G02室"}, (8, 12, 14, 20)),
        ("consult-w", "room", {"en": "Consultation Room", "zh-Hant": "診症室"}, (14, 12, 20, 20)),
        ("consult-e", "room", {"en": "Consultation Room", "zh-Hant": "診症室"}, (20, 12, 26, 20)),
        ("restroom", "restroom", None, (26, 12, 30, 20)),
        ("lobby", "lobby", {"en": "Entrance Lobby", "zh-Hant": "入口大堂"}, (0, 0, 6, 8)),
        ("xray", "room", {"en": "X-ray Room"}, (6, 0, 12, 8)),
        ("physio", "room", {"en": "Physiotherapy Room", "zh-Hant": "物理治療室"}, (19, 0, 30, 8)),
    ],
    "1": [
        ("mch", "room", {"en": "Room 101", "zh-Hant": "101室"}, (0, 12, 10, 20)),
        ("dental", "room", {"en": "Dental Clinic", "zh-Hant": "牙科診所"}, (10, 12, 16, 20)),
        ("office-w", "office", {"en": "Office", "zh-Hant": "辦公室"}, (16, 12, 23, 20)),
        ("office-e", "office", {"en": "Office", "zh-Hant": "會計室"}, (23, 12, 30, 20)),
        ("hall", "room", {"en": "Multi-purpose Room", "zh-Hant": "多用途室"}, (0, 0, 12, 8)),
        ("restroom", "restroom.female", None, (19, 0, 30, 8)),
    ],
    "2": [
        ("hall", "room", {"en": "Community Hall", "zh-Hant": "社區會堂"}, (0, 12, 30, 20)),
        ("store", "storage", {"zh-Hant": "儲物室"}, (19, 0, 30, 8)),
    ],
}


@dataclass(frozen=True)
class BilingualClinic:
    """The venue, its level ids by key ("G", "1", "2"), its units by "<level>:<key>"
    ("G:xray", "1:lift", "G:corridor") and its amenities and occupants by key."""

    venue: Venue
    levels: dict[str, str]
    units: dict[str, str]
    features: dict[str, str]

    def archive(self) -> bytes:
        """The venue as a zip of IMDF files, the manifest's language `en`."""
        return zip_bytes(self.venue.files())

    @property
    def venue_id(self) -> str:
        return str(self.venue.features["venue"][0]["id"])


def bilingual_clinic() -> BilingualClinic:
    """Lung Wan Community Clinic (the module's docstring)."""
    venue = Venue("Lung Wan Community Clinic", origin=ORIGIN)
    venue.add(
        "venue", stable_id("venue:lung-wan"), venue.polygon(OUTLINE), _venue_properties(venue)
    )
    levels: dict[str, str] = {}
    units: dict[str, str] = {}
    for key, (ordinal, name, short) in LEVELS.items():
        levels[key] = venue.add(
            "level",
            stable_id(f"level:{OWN}{key}"),
            venue.polygon(OUTLINE),
            level_properties(ordinal, name, short),
        )
        corridor = rect(0, 8, 30, 12)
        units[f"{key}:corridor"] = venue.unit(
            f"{OWN}{key}:corridor", levels[key], "walkway", corridor, CORRIDOR
        )
        units[f"{key}:lift"] = venue.unit(f"{OWN}{key}:lift", levels[key], "elevator", rect(*LIFT))
        units[f"{key}:stairs"] = venue.unit(
            f"{OWN}{key}:stairs", levels[key], "stairs", rect(*STAIRS)
        )
        for room, category, room_name, box in ROOMS[key]:
            units[f"{key}:{room}"] = venue.unit(
                f"{OWN}{key}:{room}", levels[key], category, rect(*box), room_name
            )
        doors = [(room, box) for room, _, _, box in ROOMS[key]]
        for room, (x0, y0, _, _) in [*doors, ("lift", LIFT), ("stairs", STAIRS)]:
            y = 12.0 if y0 >= 12 else 8.0
            _opening(venue, f"{key}:{room}", levels[key], (x0 + 1, y), (x0 + 2.2, y))
    _opening(venue, "G:entrance", levels["G"], (0, 9), (0, 11), "pedestrian.principal")
    for kind in ("lift", "stairs"):
        category = "elevator" if kind == "lift" else "stairs"
        ends = [{"id": units[f"{key}:{kind}"], "feature_type": "unit"} for key in LEVELS]
        venue.add(
            "relationship",
            stable_id(f"relationship:{OWN}{kind}"),
            None,
            {
                "category": category,
                "direction": "undirected",
                "origin": ends[0],
                "intermediary": ends[1:-1],  # [] with two levels, as some exporters write
                "destination": ends[-1],
                "hours": None,
            },
        )
    features = {
        "pharmacy": venue.occupant(
            f"{OWN}pharmacy",
            "pharmacy",
            {"en": "Community Pharmacy", "zh-Hant": "社區藥房"},
            (11, 16),
            units["G:g02"],
        ),
        "mch": venue.occupant(
            f"{OWN}mch",
            "clinic",
            {"en": "Maternal and Child Health Centre", "zh-Hant": "母嬰健康院"},
            (5, 16),
            units["1:mch"],
        ),
        "enquiry": venue.amenity(
            f"{OWN}enquiry",
            "information",
            (3, 4),
            [units["G:lobby"]],
            {"en": "Enquiry Counter", "zh-Hant": "詢問處"},
        ),
        "fountain": venue.amenity(
            f"{OWN}fountain",
            "drinkingwater",
            (24, 10),
            [units["G:corridor"]],
            {"zh-Hant": "飲水機"},
        ),
        "babycare": venue.amenity(
            f"{OWN}babycare",
            "babychanging",
            (6, 4),
            [units["1:hall"]],
            {"en": "Baby Care Room", "zh-Hant": "育嬰室"},
        ),
    }
    return BilingualClinic(venue, levels, units, features)


def _venue_properties(venue: Venue) -> dict[str, Any]:
    return {
        "category": "healthcarefacility",
        "restriction": None,
        "name": NAME,
        "alt_name": None,
        "hours": "Mo-Fr 09:00-17:00",
        "phone": "+85221234567",
        "website": None,
        "display_point": venue.point(15, -2),
        "address_id": None,
    }


def _opening(
    venue: Venue,
    key: str,
    level: str,
    a: tuple[float, float],
    b: tuple[float, float],
    category: str = "pedestrian",
) -> str:
    """A glass door, automatic but on the plain pedestrian openings."""
    door = {"type": "hinged", "automatic": category != "pedestrian", "material": "glass"}
    return venue.opening(f"{OWN}{key}", level, a, b, category=category, door=door)


def manifest_language(archive: dict[str, bytes], language: str) -> dict[str, bytes]:
    """The archive's files with the manifest's `language` set to `language`."""
    manifest = orjson.loads(archive["manifest.json"])
    return {**archive, "manifest.json": orjson.dumps({**manifest, "language": language})}
