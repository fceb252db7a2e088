"""A bigger Hong Kong-style clinic of our own (issue 65, point 3): Tai Hang General
Out-patient Clinic, 44 rooms on two levels named in English and Traditional Chinese, where
most rooms hold an IMDF amenity of category `unspecified` whose `unit_ids` names that one
room, with the room's own name: the way the Hong Kong government's IMDF venues label
their rooms (125 of 213 locations of one such clinic were such pairs). Built in code; no
licence applies (the layout and names are ours).

Two levels (G/F, 1/F), 60 m x 20 m, metres x east and y north. On each a corridor
(y 8..12) runs the whole width; twelve rooms 5 m wide face it north (y 12..20) and twelve
south (y 0..8), each with a door on it; the lift and the stairs are the sixth and
seventh south rooms of both levels, joined by relationships; the main entrance is at
the west end of the G/F corridor.

What the amenity of a room says (the last field of its row in `LEVELS`):

- `same`: the room's name in both languages (most rooms): the room itself;
- `same-en`: the room's English name only: the room itself;
- `adds-zh`: the room's English name and a Chinese one the room lacks: the room itself,
  which takes the Chinese name;
- `bare`: no name: the room itself;
- `other`: another name (`Nurse Station` in the Treatment Room): a place of its own;
- `differs`: the room's English name, another Chinese one (`Interview Rm`, `面談室` in
  `會見室`): the room itself, found by the other name too (`alt_name`);
- `own`: an amenity of its own category (a drinking fountain in the waiting area, the
  enquiry counter in the lobby, a baby-changing place): a place of its own.

Four G/F rooms are all called `Consultation Rm` (`診症室`), two `Office`, two 1/F rooms
`Counselling Rm`: each such room has its `same` amenity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.venues.imdf_venues import Label, Venue, level_properties, rect, stable_id, zip_bytes

ORIGIN = (114.1925, 22.2770)  # lon, lat: Hong Kong Island
WIDTH, ROOM = 60.0, 5.0
NAME = {"en": "Tai Hang General Out-patient Clinic", "zh-Hant": "大坑普通科門診診所"}
OWN = "tai-hang:"  # starts each feature's id name: ids of its own
# (key, unit category, English name or "", Chinese name or "", what its amenity says)
Room = tuple[str, str, str, str, str]
LIFT, STAIRS = 17, 18  # their slot on every level: the sixth and seventh south rooms

# level key -> ordinal, name, short name, its 24 slots (12 north west to east, 12 south)
LEVELS: dict[str, tuple[int, Label, Label, list[Room]]] = {
    "G": (
        0,
        {"en": "Ground Floor", "zh-Hant": "地下"},
        {"en": "G/F", "zh-Hant": "地下"},
        [
            ("consult-1", "room", "Consultation Rm", "診症室", "same"),
            ("consult-2", "room", "Consultation Rm", "診症室", "same"),
            ("consult-3", "room", "Consultation Rm", "診症室", "same"),
            ("consult-4", "room", "Consultation Rm", "診症室", "same"),
            ("waiting", "waitingroom", "Waiting Area", "候診區", "same"),
            ("registration", "room", "Registration", "登記處", "same"),
            ("pharmacy", "room", "Pharmacy", "藥房", "same"),
            ("dressing", "room", "Dressing Rm", "敷傷室", "same"),
            ("injection", "room", "Injection Rm", "注射室", "same-en"),
            ("treatment", "room", "Treatment Rm", "治療室", "other"),
            ("health-ed", "room", "Health Education Rm", "健康教育室", "same"),
            ("toilet-m", "restroom.male", "", "", ""),
            ("lobby", "lobby", "Entrance Lobby", "入口大堂", "own"),
            ("xray", "room", "X-ray Rm", "X光室", "same"),
            ("ultrasound", "room", "Ultrasound Rm", "", "adds-zh"),
            ("lab", "room", "Laboratory", "化驗室", "same"),
            ("specimen", "room", "Specimen Collection Rm", "標本收集室", "bare"),
            ("lift", "elevator", "", "", ""),
            ("stairs", "stairs", "", "", ""),
            ("store", "storage", "Store Rm", "儲物室", "same"),
            ("office-1", "office", "Office", "辦公室", "same"),
            ("office-2", "office", "Office", "辦公室", "same"),
            ("dental", "room", "Dental Clinic", "牙科診所", "same"),
            ("toilet-f", "restroom.female", "", "", ""),
        ],
    ),
    "1": (
        1,
        {"en": "First Floor", "zh-Hant": "一樓"},
        {"en": "1/F", "zh-Hant": "一樓"},
        [
            ("mch", "room", "Maternal & Child Health Centre", "母嬰健康院", "same"),
            ("family", "room", "Family Planning", "家庭計劃", "same"),
            ("vaccination", "room", "Vaccination Rm", "疫苗注射室", "same"),
            ("babycare", "room", "Baby Care Rm", "育嬰室", "own"),
            ("counsel-1", "room", "Counselling Rm", "輔導室", "same"),
            ("counsel-2", "room", "Counselling Rm", "輔導室", "same"),
            ("audiology", "room", "Audiology Rm", "聽力室", "same"),
            ("eye", "room", "Eye Clinic", "眼科診所", "same"),
            ("seminar", "room", "Seminar Rm", "研討室", "same"),
            ("pantry", "room", "Pantry", "茶水間", "same"),
            ("meeting", "room", "Meeting Rm", "會議室", "same"),
            ("interview", "room", "Interview Rm", "會見室", "differs"),
            ("physio", "room", "Physiotherapy Rm", "物理治療室", "same"),
            ("ot", "room", "Occupational Therapy Rm", "職業治療室", "same"),
            ("gym", "room", "Gymnasium", "健身室", "same"),
            ("records", "room", "Medical Records Rm", "病歷室", "same"),
            ("server", "room", "Server Rm", "伺服器室", "bare"),
            ("lift", "elevator", "", "", ""),
            ("stairs", "stairs", "", "", ""),
            ("staff", "room", "Staff Rm", "職員室", "same"),
            ("locker", "room", "Locker Rm", "更衣室", "same-en"),
            ("toilet-m", "restroom.male", "", "", ""),
            ("toilet-f", "restroom.female", "", "", ""),
            ("store", "storage", "Store Rm", "儲物室", "same"),
        ],
    ),
}
# room key -> the amenity of its own category (`own`), or of another name than the room's
# (`other`, `differs`): category, name
OWN_AMENITIES: dict[str, tuple[str, Label]] = {
    "G:lobby": ("information", {"en": "Enquiry Counter", "zh-Hant": "詢問處"}),
    "1:babycare": ("babychanging", {"en": "Baby Changing", "zh-Hant": "嬰兒換片處"}),
    "G:treatment": ("unspecified", {"en": "Nurse Station", "zh-Hant": "護士站"}),
    "1:interview": ("unspecified", {"en": "Interview Rm", "zh-Hant": "面談室"}),
}
FOUNTAIN: Label = {"en": "Drinking Fountain", "zh-Hant": "飲水機"}  # in the waiting area
CORRIDOR: Label = {"en": "Corridor", "zh-Hant": "走廊"}


@dataclass(frozen=True)
class HkClinic:
    """The venue, its level ids by key ("G", "1"), its units by "<level>:<key>" and its
    amenities by "<level>:<room key>" or "fountain"."""

    venue: Venue
    levels: dict[str, str]
    units: dict[str, str]
    amenities: dict[str, str]

    def archive(self) -> bytes:
        """The venue as a zip of IMDF files, the manifest's language `en`."""
        return zip_bytes(self.venue.files())

    @property
    def venue_id(self) -> str:
        return str(self.venue.features["venue"][0]["id"])


def hk_clinic() -> HkClinic:
    """Tai Hang General Out-patient Clinic (the module's docstring)."""
    venue = Venue("Tai Hang General Out-patient Clinic", origin=ORIGIN, id_prefix=OWN)
    outline = venue.polygon(rect(0, 0, WIDTH, 20))
    venue.add("venue", stable_id(f"{OWN}venue"), outline, _venue_properties(venue))
    levels: dict[str, str] = {}
    units: dict[str, str] = {}
    amenities: dict[str, str] = {}
    for key, (ordinal, name, short, rooms) in LEVELS.items():
        level = levels[key] = venue.add(
            "level", venue.feature_id("level", key), outline, level_properties(ordinal, name, short)
        )
        corridor = rect(0, 8, WIDTH, 12)
        units[f"{key}:corridor"] = venue.unit(
            f"{key}:corridor", level, "walkway", corridor, CORRIDOR
        )
        for slot, (room, category, english, chinese, says) in enumerate(rooms):
            north = slot < 12
            x0 = (slot % 12) * ROOM
            box = (x0, 12.0, x0 + ROOM, 20.0) if north else (x0, 0.0, x0 + ROOM, 8.0)
            names = {k: v for k, v in (("en", english), ("zh-Hant", chinese)) if v}
            unit = units[f"{key}:{room}"] = venue.unit(
                f"{key}:{room}", level, category, rect(*box), names or None
            )
            door_y = 12.0 if north else 8.0
            _opening(venue, f"{key}:{room}", level, (x0 + 1.5, door_y), (x0 + 3.0, door_y))
            centre = (x0 + ROOM / 2, 16.0 if north else 4.0)
            if category.startswith("restroom"):  # its own kind: the room itself already
                amenities[f"{key}:{room}"] = venue.amenity(
                    f"{key}:{room}", category, centre, [unit], None
                )
            elif says:
                amenity_category, amenity_name = _says(says, f"{key}:{room}", english, chinese)
                at = (
                    centre
                    if says not in ("own", "other", "differs")
                    else (x0 + 1.0, centre[1] + 1.0)
                )
                amenities[f"{key}:{room}"] = venue.amenity(
                    f"{key}:{room}", amenity_category, at, [unit], amenity_name
                )
    _opening(venue, "G:entrance", levels["G"], (0, 9), (0, 11), "pedestrian.principal")
    amenities["fountain"] = venue.amenity(
        "fountain", "drinkingwater", (21.0, 13.0), [units["G:waiting"]], FOUNTAIN
    )
    for kind, category in (("lift", "elevator"), ("stairs", "stairs")):
        venue.relationship(kind, category, [units[f"{key}:{kind}"] for key in LEVELS])
    return HkClinic(venue, levels, units, amenities)


def _says(says: str, room: str, english: str, chinese: str) -> tuple[str, Label | None]:
    """An amenity's category and name for what it says of its room (the module's docstring)."""
    if says in ("own", "other", "differs"):
        return OWN_AMENITIES[room]
    names = {
        "same": {"en": english, "zh-Hant": chinese},
        "same-en": {"en": english},
        "adds-zh": {"en": english, "zh-Hant": "超聲波室"},
    }
    return "unspecified", names.get(says)


def _venue_properties(venue: Venue) -> dict[str, Any]:
    return {
        "category": "healthcarefacility",
        "restriction": None,
        "name": NAME,
        "alt_name": None,
        "hours": "Mo-Fr 09:00-17:00",
        "phone": None,
        "website": None,
        "display_point": venue.point(30, -2),
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
    """An opening without a door (none of the clinic's says one)."""
    return venue.opening(key, level, a, b, category=category, door=None)
