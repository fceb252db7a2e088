"""An amenity that only names its unit is the unit's place (issue 65, point 3), decided
without a database on Tai Hang clinic (tests/venues/hk_clinic.py): 44 rooms in English
and Traditional Chinese, most holding an `unspecified` amenity with the room's name.
The clinic as imported and searched is tested in tests/storage/imdf/test_hk_clinic.py."""

from __future__ import annotations

from dataclasses import replace

from parsing.imdf.contents import MERGED_INTO_UNIT, names_only_its_unit, unit_contents
from parsing.imdf.names import name_units
from parsing.imdf.places import read_places
from parsing.imdf.read import read_archive
from parsing.imdf.venue import ImdfOptions, Venue
from tests.venues.hk_clinic import LEVELS, hk_clinic

CLINIC = hk_clinic()
APART = {"G:treatment", "G:lobby", "1:babycare", "fountain"}  # another name, own category


def built() -> Venue:
    return Venue(read_archive(CLINIC.venue.files()), ImdfOptions())


def test_the_amenities_that_only_name_their_room_are_the_room():
    venue = built()
    merged = {key for inside in unit_contents(venue).values() for key in inside.merged}
    keys = {amenity: key for key, amenity in CLINIC.amenities.items()}
    assert {keys[amenity] for amenity in merged} == set(CLINIC.amenities) - APART
    rooms = sum(1 for _, _, _, rooms in LEVELS.values() for room in rooms if room[4])
    restrooms = 4  # each holds a restroom amenity: of its kind, taken in before issue 65
    assert len(merged) == rooms - 3 + restrooms == 41  # Treatment, Lobby, Baby Care: apart
    first = ", ".join(CLINIC.amenities[f"G:consult-{n}"] for n in (1, 2, 3)).replace(",", ";")
    assert venue.report.lines() == [f"{MERGED_INTO_UNIT}: 37 (e.g. {first})"]


def test_what_an_amenity_must_not_say_to_be_its_unit():
    venue = built()
    unit = venue.units[CLINIC.units["G:consult-1"]]
    amenity = venue.archive.by_id("amenity")[CLINIC.amenities["G:consult-1"]]
    own = {"en": "Consultation Rm", "zh-Hant": "診症室"}

    def merged(texts: dict[str, str], **changes: object) -> bool:
        changed = replace(amenity, properties={**amenity.properties, **changes})
        return names_only_its_unit(changed, unit, own, texts)

    assert merged({"en": "consultation  RM", "zh-Hant": "診症室"})  # case and spacing aside
    assert merged({})  # no name: says nothing
    assert merged({"en": "Consultation Rm", "zh-Hant": "面談室"})  # its Chinese: another name
    assert merged({"zh-Hant": "診症室", "fr": "Salle"})  # the first language it shares
    assert not merged({"en": "Nurse Station"})  # another place in the room
    assert not merged({"fr": "Salle de consultation"})  # no language to compare
    assert not merged({"en": "Consultation Rm"}, category="information")  # says what it is
    assert not merged({"en": "Consultation Rm"}, category="drinkingwater")
    two = [unit.feature.id, CLINIC.units["G:consult-2"]]
    assert not merged({"en": "Consultation Rm"}, unit_ids=two)  # spans two rooms
    assert not merged({"en": "Consultation Rm"}, unit_ids=None)


def test_repeated_names_are_numbered_once_on_the_rooms():
    venue = built()
    naming = name_units(venue, unit_contents(venue))
    names = {key: venue.units[unit].names for key, unit in CLINIC.units.items()}
    assert [names[f"G:consult-{n}"] for n in (1, 2, 3, 4)] == [
        {"en": f"Consultation Rm {n}", "zh-Hant": f"診症室 {n}"} for n in (1, 2, 3, 4)
    ]
    assert names["1:counsel-2"] == {"en": "Counselling Rm 2", "zh-Hant": "輔導室 2"}
    # the amenity's Chinese name is the room's, which had none
    assert names["G:ultrasound"] == {"en": "Ultrasound Rm", "zh-Hant": "超聲波室"}
    assert names["G:specimen"] == {"en": "Specimen Collection Rm", "zh-Hant": "標本收集室"}
    # every amenity here has a name, or is its room; the entrance is named by its kind
    entrance = CLINIC.venue.feature_id("opening", "G:entrance")
    assert list(naming.places) == [entrance]
    assert naming.places[entrance]["en"] == "Entrance 1"


def test_no_two_places_in_one_room_share_a_name():
    venue = built()
    contents = unit_contents(venue)
    places = read_places(venue, contents, name_units(venue, contents))
    inside: dict[str, list[str]] = {}
    doorways = [place for place in places if ("imdf:feature", "opening") in place.tags]
    assert [(place.names["en"], place.level) for place in doorways] == [
        ("Entrance 1", CLINIC.levels["G"])
    ]
    for place in places:
        if place in doorways:
            continue
        units = [place.id] if place.id in venue.units else [CLINIC_UNIT_OF[place.id]]
        inside.setdefault(units[0], []).append(place.names["en"])
    assert all(len(names) == len(set(names)) for names in inside.values())
    names = sorted(name for found in inside.values() for name in found)
    assert "Consultation Rm" not in names and names.count("Consultation Rm 1") == 1
    # 44 rooms, 2 lifts, 2 stairs (not the corridors); 4 apart; the entrance
    assert len(places) == 2 * 24 + 4 + 1
    interview = next(p for p in places if p.id == CLINIC.units["1:interview"])
    assert dict(interview.tags)["alt_name"] == "面談室"  # the amenity's other name finds it
    assert dict(interview.tags)["imdf:amenity"] == CLINIC.amenities["1:interview"]
    nurse = next(p for p in places if p.id == CLINIC.amenities["G:treatment"])
    assert nurse.names == {"en": "Nurse Station", "zh-Hant": "護士站"}


CLINIC_UNIT_OF = {
    feature["id"]: feature["properties"]["unit_ids"][0]
    for feature in CLINIC.venue.features["amenity"]
}
