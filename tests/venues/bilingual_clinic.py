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

from tests.venues.imdf_venues import Venue, rect, stable_id, zip_bytes

ORIGIN = (114.1812, 22.2799)  # lon, lat: Hong Kong Island
OUTLINE = rect(0, 0, 30, 20)
NAME = {"en": "Lung Wan Community Clinic", "zh-Hant": "龍灣社區診所"}
LIFT, STAIRS = (12.0, 0.0, 15.0, 8.0), (15.0, 0.0, 19.0, 8.0)
Box = tuple[float, float, float, float]
Label = dict[str, str]

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
    _feature(venue, "venue", "venue:lung-wan", venue.polygon(OUTLINE), _venue_properties(venue))
    levels: dict[str, str] = {}
    units: dict[str, str] = {}
    for key, (ordinal, name, short) in LEVELS.items():
        levels[key] = _feature(
            venue,
            "level",
            f"level:lung-wan-{key}",
            venue.polygon(OUTLINE),
            _level(ordinal, name, short),
        )
        units[f"{key}:corridor"] = _unit(
            venue, f"{key}:corridor", levels[key], "walkway", CORRIDOR, (0, 8, 30, 12)
        )
        units[f"{key}:lift"] = _unit(venue, f"{key}:lift", levels[key], "elevator", None, LIFT)
        units[f"{key}:stairs"] = _unit(venue, f"{key}:stairs", levels[key], "stairs", None, STAIRS)
        for room, category, room_name, box in ROOMS[key]:
            units[f"{key}:{room}"] = _unit(
                venue, f"{key}:{room}", levels[key], category, room_name, box
            )
        doors = [(room, box) for room, _, _, box in ROOMS[key]]
        for room, (x0, y0, _, _) in [*doors, ("lift", LIFT), ("stairs", STAIRS)]:
            y = 12.0 if y0 >= 12 else 8.0
            _opening(venue, f"{key}:{room}", levels[key], (x0 + 1, y), (x0 + 2.2, y))
    _opening(venue, "G:entrance", levels["G"], (0, 9), (0, 11), category="pedestrian.principal")
    for kind in ("lift", "stairs"):
        category = "elevator" if kind == "lift" else "stairs"
        ends = [{"id": units[f"{key}:{kind}"], "feature_type": "unit"} for key in LEVELS]
        _feature(
            venue,
            "relationship",
            f"relationship:lung-wan-{kind}",
            None,
            {
                "category": category,
                "direction": "undirected",
                "origin": ends[0],
                "intermediary": ends[1:-1],
                "destination": ends[-1],
                "hours": None,
            },
        )
    features = {
        "pharmacy": _occupant(
            venue,
            "pharmacy",
            "pharmacy",
            {"en": "Community Pharmacy", "zh-Hant": "社區藥房"},
            (11, 16),
            units["G:g02"],
        ),
        "mch": _occupant(
            venue,
            "mch",
            "clinic",
            {"en": "Maternal and Child Health Centre", "zh-Hant": "母嬰健康院"},
            (5, 16),
            units["1:mch"],
        ),
        "enquiry": _amenity(
            venue,
            "enquiry",
            "information",
            {"en": "Enquiry Counter", "zh-Hant": "詢問處"},
            (3, 4),
            [units["G:lobby"]],
        ),
        "fountain": _amenity(
            venue,
            "fountain",
            "drinkingwater",
            {"zh-Hant": "飲水機"},
            (24, 10),
            [units["G:corridor"]],
        ),
        "babycare": _amenity(
            venue,
            "babycare",
            "babychanging",
            {"en": "Baby Care Room", "zh-Hant": "育嬰室"},
            (6, 4),
            [units["1:hall"]],
        ),
    }
    return BilingualClinic(venue, levels, units, features)


def _feature(
    venue: Venue, kind: str, key: str, geometry: dict[str, Any] | None, properties: dict[str, Any]
) -> str:
    return venue.add(kind, stable_id(key), geometry, properties)


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


def _level(ordinal: int, name: Label, short: Label) -> dict[str, Any]:
    return {
        "category": "unspecified",
        "restriction": None,
        "outdoor": False,
        "ordinal": ordinal,
        "name": name,
        "short_name": short,
        "display_point": None,
        "address_id": None,
        "building_ids": None,
    }


def _unit(venue: Venue, key: str, level: str, category: str, name: Label | None, box: Box) -> str:
    return _feature(
        venue,
        "unit",
        f"unit:lung-wan-{key}",
        venue.polygon(rect(*box)),
        {
            "category": category,
            "restriction": None,
            "accessibility": None,
            "name": name,
            "alt_name": None,
            "level_id": level,
            "display_point": None,
        },
    )


def _opening(
    venue: Venue,
    key: str,
    level: str,
    a: tuple[float, float],
    b: tuple[float, float],
    category: str = "pedestrian",
) -> str:
    geometry = {"type": "LineString", "coordinates": [venue.lon_lat(*a), venue.lon_lat(*b)]}
    return _feature(
        venue,
        "opening",
        f"opening:lung-wan-{key}",
        geometry,
        {
            "category": category,
            "accessibility": None,
            "access_control": None,
            "door": {"type": "hinged", "automatic": category != "pedestrian", "material": "glass"},
            "name": None,
            "alt_name": None,
            "display_point": None,
            "level_id": level,
        },
    )


def _amenity(
    venue: Venue,
    key: str,
    category: str,
    name: Label,
    at: tuple[float, float],
    unit_ids: list[str],
) -> str:
    return _feature(
        venue,
        "amenity",
        f"amenity:lung-wan-{key}",
        venue.point(*at),
        {
            "category": category,
            "accessibility": None,
            "name": name,
            "alt_name": None,
            "hours": None,
            "phone": None,
            "website": None,
            "unit_ids": unit_ids,
            "address_id": None,
            "correlation_id": None,
        },
    )


def _occupant(
    venue: Venue,
    key: str,
    category: str,
    name: Label,
    at: tuple[float, float],
    unit_id: str,
) -> str:
    anchor = _feature(
        venue,
        "anchor",
        f"anchor:lung-wan-{key}",
        venue.point(*at),
        {"address_id": None, "unit_id": unit_id},
    )
    return _feature(
        venue,
        "occupant",
        f"occupant:lung-wan-{key}",
        None,
        {
            "name": name,
            "category": category,
            "anchor_id": anchor,
            "hours": None,
            "phone": None,
            "website": None,
            "validity": None,
            "correlation_id": None,
        },
    )


def manifest_language(archive: dict[str, bytes], language: str) -> dict[str, bytes]:
    """The archive's files with the manifest's `language` set to `language`."""
    manifest = orjson.loads(archive["manifest.json"])
    return {**archive, "manifest.json": orjson.dumps({**manifest, "language": language})}
