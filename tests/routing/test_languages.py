"""The directions in every language of routing/vocabulary.py (issue 51, point 3), told on
real routes: maneuvers planned from hand-made polylines and rides (as
tests/routing/test_maneuvers.py makes them), then written by `instructions.instruction`.

Every maneuver type, every modifier, every connector kind up and down over one floor and
several, the door, arrivals beside and not, named and unnamed ends are written in each
language; a few are asserted word for word, and none of them may keep an English word of
ENGLISH's. The names of places and floors are data (the caller's, in the visitor's
language): here names that are no word of ENGLISH's, so that only the templates speak.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

import pytest

from resolvers.wayfinding.instructions import Words, floors, instruction, length
from routing.maneuvers import Maneuver, Place, Places, plan_maneuvers
from routing.model import CONNECTOR_NAMES, DOOR, ELEVATOR, ESCALATOR, RAMP, STAIRS
from routing.route import Ride, Route
from routing.vocabulary import (
    ENGLISH,
    FRENCH,
    GERMAN,
    LANGUAGES,
    SIMPLIFIED_CHINESE,
    SPANISH,
    SUPPORTED,
    TRADITIONAL_CHINESE,
    Language,
    ManeuverType,
    Modifier,
    Side,
    language_of,
)
from tests.routing.test_maneuvers import heading, leg, route

NAMES = ["B2", "B1", "G1", "M3"]  # the floors' names, lowest first
NAMED = Words("Lobby 一", "Café 三", NAMES.__getitem__)
UNNAMED = Words(None, None, NAMES.__getitem__, "metric")
KIOSK = Place("loc-kiosk", None, "Kiosk 七", 0, 48, 3)  # ahead of a right turn at (40, 0)
CORNER = Place("loc-corner", None, "Kiosk 七", 0, 41, 1)  # at the corner of every turn
OTHERS = [language for language in LANGUAGES.values() if language is not ENGLISH]


@dataclass(frozen=True)
class Scene:
    """A route and its maneuvers, as the service plans them (1 ft per canvas unit)."""

    route: Route
    maneuvers: list[Maneuver]

    def told(self, words: Words, says: Language) -> list[str]:
        return [instruction(m, self.route, words, says) for m in self.maneuvers]


def scene(found: Route, places: list[Place] | None = None) -> Scene:
    return Scene(found, plan_maneuvers(found, 1.0, Places(places or [], 30.0)))


def sample() -> Scene:
    """East 40 ft, right at the kiosk, 40 ft south to the elevator, up 2 floors to G1,
    40 ft south, left, 40 ft east."""
    lift = Ride(ELEVATOR, "e", (40, 40), 0, 2, 20.0, 40.0)
    ground = leg([(0, 0), (40, 0), (40, 40)])
    return scene(route(ground, leg([(40, 40), (40, 80), (80, 80)], 2), rides=(lift,)), [KIOSK])


TURNED = {
    Modifier.UTURN: 180,
    Modifier.SHARP_RIGHT: 150,
    Modifier.RIGHT: 90,
    Modifier.SLIGHT_RIGHT: 45,
    Modifier.SLIGHT_LEFT: -45,
    Modifier.LEFT: -90,
    Modifier.SHARP_LEFT: -150,
}


def turn(word: Modifier, places: list[Place] | None = None) -> Scene:
    """East 40 ft, then 40 ft turned by `word`'s angle."""
    corner = (40.0, 0.0)
    return scene(route(leg([(0, 0), corner, heading(corner, 90 + TURNED[word], 40)])), places)


def ride(kind: int, low: int, high: int) -> Scene:
    """East 30 ft on level `low`, the connector to level `high`, 30 ft south there."""
    taken = Ride(kind, "c", (30, 0), low, high, 15.0, 12.0)
    return scene(route(leg([(0, 0), (30, 0)], low), leg([(30, 0), (30, 30)], high), rides=(taken,)))


def beside(side: Side) -> Scene:
    """Along a corridor, then 4 ft to a door on `side` and 17.5 ft into the room."""
    y = -4 if side == Side.LEFT else 4
    return scene(route(leg([(0, 0), (40, 0), (40, y), (40, y * 21.5 / 4)])))


def from_the_elevator() -> Scene:
    """Nothing walked before the elevator: its sentence is the action alone."""
    lift = Ride(ELEVATOR, "e", (30, 0), 0, 2, 20.0, 40.0)
    return scene(route(leg([(30, 0)]), leg([(30, 0), (0, 0)], 2), rides=(lift,)))


KINDS = (STAIRS, ELEVATOR, RAMP, ESCALATOR)
WAYS = ((0, 1), (1, 0), (0, 3), (3, 1))  # up one floor, down one, up 3, down 2


def every_scene() -> list[Scene]:
    return [
        sample(),
        from_the_elevator(),
        *(turn(word) for word in Modifier),
        *(turn(word, [CORNER]) for word in Modifier),
        *(ride(kind, low, high) for kind in KINDS for low, high in WAYS),
        ride(DOOR, 1, 2),
        *(beside(side) for side in Side),
    ]


SCENES = every_scene()


def test_the_scenes_hold_every_case():
    """Every type and modifier, turns with and without a landmark, every connector kind
    up and down by one floor and by several, the door, both sides and none."""
    maneuvers = [(s.route, m) for s in SCENES for m in s.maneuvers]
    assert {m.type for _, m in maneuvers} == set(ManeuverType)
    turns = [m for _, m in maneuvers if m.type == ManeuverType.TURN]
    assert {m.modifier for m in turns if m.landmark is None} == set(Modifier)
    assert {m.modifier for m in turns if m.landmark is not None} == set(Modifier)
    rides = [r.rides[m.ride] for r, m in maneuvers if m.ride is not None]
    ways = {(CONNECTOR_NAMES[r.kind], r.to_level > r.from_level, r.floors > 1) for r in rides}
    kinds = [CONNECTOR_NAMES[kind] for kind in KINDS]
    assert ways >= {(k, up, many) for k in kinds for up in (True, False) for many in (True, False)}
    assert ("door", True, False) in ways and DOOR not in KINDS
    assert {m.side for _, m in maneuvers if m.type == ManeuverType.ARRIVE} == {*Side, None}


def english_words() -> set[str]:
    """The words (3 letters or more) of ENGLISH's templates, phrases and names."""
    texts: list[str] = []
    for value in vars(ENGLISH).values():
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            texts.extend(value.values())
    literal = [text for whole in texts for text, *_ in string.Formatter().parse(whole)]
    return {word.lower() for text in literal for word in re.findall(r"[A-Za-z]{3,}", text)}


ENGLISH_WORDS = english_words()


def english_in(sentence: str) -> list[str]:
    """The words of ENGLISH's in `sentence`, whole words whatever their case."""
    return [
        word
        for word in sorted(ENGLISH_WORDS)
        if re.search(rf"(?<![A-Za-z]){word}(?![A-Za-z])", sentence, re.IGNORECASE)
    ]


def test_the_english_words_are_the_tables():
    """The check below looks for these (and the data of the scenes holds none of them)."""
    expected = {"walk", "then", "start", "your", "location", "make", "turn", "sharply"}
    expected |= {"right", "slightly", "left", "take", "the", "down", "floors", "floor"}
    expected |= {"through", "door", "arrive", "destination", "stairs", "elevator", "ramp"}
    assert english_words() == expected | {"escalator"}
    for name in [*NAMES, NAMED.start, NAMED.end, KIOSK.name]:
        assert name is not None and english_in(name) == []


@pytest.mark.parametrize("says", OTHERS, ids=lambda language: language.tag)
def test_no_english_word_is_left_in_another_language(says):
    for found in SCENES:
        for words in (NAMED, UNNAMED):
            english = found.told(words, ENGLISH)
            for sentence, theirs in zip(found.told(words, says), english, strict=True):
                assert english_in(sentence) == [], (sentence, theirs)
                assert "{" not in sentence and "}" not in sentence, sentence
                assert sentence != theirs


@pytest.mark.parametrize("says", LANGUAGES.values(), ids=lambda language: language.tag)
def test_every_connector_kind_is_named_by_the_language(says):
    """Each kind's sentence names it with the language's own name, and no two kinds
    share a sentence."""
    for low, high in WAYS:
        told = {kind: ride(kind, low, high).told(NAMED, says)[1] for kind in KINDS}
        assert len(set(told.values())) == len(KINDS)
        for kind, sentence in told.items():
            assert says.connectors[CONNECTOR_NAMES[kind]] in sentence, sentence


# ---------------------------------------------------------------- word for word

SAMPLE = {
    "en": [
        "Start at Lobby 一",
        "Walk 40 ft, then turn right at Kiosk 七",
        "Walk 40 ft, then take the elevator up 2 floors to G1",
        "Walk 40 ft, then turn left",
        "Walk 40 ft, then arrive at Café 三",
    ],
    "zh-Hant": [
        "從Lobby 一出發",
        "步行 40英尺後在Kiosk 七右轉",
        "步行 40英尺後搭電梯上 2 層樓到G1",
        "步行 40英尺後左轉",
        "步行 40英尺後抵達Café 三",
    ],
    "zh-Hans": [
        "从Lobby 一出发",
        "步行40英尺后在Kiosk 七右转",
        "步行40英尺后乘电梯上2层楼到G1",
        "步行40英尺后左转",
        "步行40英尺后到达Café 三",
    ],
    "fr": [
        "Partez depuis Lobby 一",
        "Marchez 40\u202fpi, puis tournez à droite devant Kiosk 七",
        "Marchez 40\u202fpi, puis prenez l'ascenseur pour monter de 2 étages jusqu'au niveau G1",
        "Marchez 40\u202fpi, puis tournez à gauche",
        "Marchez 40\u202fpi, puis vous arrivez à Café 三",
    ],
    "de": [
        "Bei Lobby 一 starten",
        "40 ft gehen, dann bei Kiosk 七 rechts abbiegen",
        "40 ft gehen, dann den Aufzug 2 Etagen nach oben bis G1 nehmen",
        "40 ft gehen, dann links abbiegen",
        "40 ft gehen, dann Café 三 erreichen",
    ],
    "es": [
        "Comience en Lobby 一",
        "Camine 40 ft y luego gire a la derecha en Kiosk 七",
        "Camine 40 ft y luego tome el ascensor para subir 2 pisos hasta G1",
        "Camine 40 ft y luego gire a la izquierda",
        "Camine 40 ft y luego llegará a Café 三",
    ],
}

SAMPLE_METRIC = {
    "en": [
        "Start at your location",
        "Walk 12 m, then turn right at Kiosk 七",
        "Walk 12 m, then take the elevator up 2 floors to G1",
        "Walk 12 m, then turn left",
        "Walk 12 m, then arrive at your destination on G1",
    ],
    "zh-Hant": [
        "從目前位置出發",
        "步行 12 公尺後在Kiosk 七右轉",
        "步行 12 公尺後搭電梯上 2 層樓到G1",
        "步行 12 公尺後左轉",
        "步行 12 公尺後抵達位於G1的目的地",
    ],
    "zh-Hans": [
        "从当前位置出发",
        "步行12米后在Kiosk 七右转",
        "步行12米后乘电梯上2层楼到G1",
        "步行12米后左转",
        "步行12米后到达位于G1的目的地",
    ],
    "fr": [
        "Partez depuis votre position",
        "Marchez 12\u202fm, puis tournez à droite devant Kiosk 七",
        "Marchez 12\u202fm, puis prenez l'ascenseur pour monter de 2 étages jusqu'au niveau G1",
        "Marchez 12\u202fm, puis tournez à gauche",
        "Marchez 12\u202fm, puis vous atteignez votre point d'arrivée au niveau G1",
    ],
    "de": [
        "An Ihrem Standort starten",
        "12 m gehen, dann bei Kiosk 七 rechts abbiegen",
        "12 m gehen, dann den Aufzug 2 Etagen nach oben bis G1 nehmen",
        "12 m gehen, dann links abbiegen",
        "12 m gehen, dann das Ziel auf G1 erreichen",
    ],
    "es": [
        "Comience en su ubicación",
        "Camine 12 m y luego gire a la derecha en Kiosk 七",
        "Camine 12 m y luego tome el ascensor para subir 2 pisos hasta G1",
        "Camine 12 m y luego gire a la izquierda",
        "Camine 12 m y luego llegará a su destino en G1",
    ],
}


@pytest.mark.parametrize("tag", SUPPORTED)
def test_a_route_in_each_language(tag):
    assert sample().told(NAMED, LANGUAGES[tag]) == SAMPLE[tag]
    assert sample().told(UNNAMED, LANGUAGES[tag]) == SAMPLE_METRIC[tag]


# (tag, the scene, its words) -> the sentence of its second maneuver
SECOND = [
    ("en", ride(STAIRS, 1, 0), NAMED, "Walk 30 ft, then take the stairs down to B2"),
    ("zh-Hant", ride(STAIRS, 1, 0), NAMED, "步行 30英尺後走樓梯下樓到B2"),
    ("zh-Hans", ride(STAIRS, 1, 0), NAMED, "步行30英尺后走楼梯下楼到B2"),
    (
        "fr",
        ride(STAIRS, 1, 0),
        NAMED,
        "Marchez 30\u202fpi, puis prenez l'escalier pour descendre au niveau B2",
    ),
    ("de", ride(STAIRS, 1, 0), NAMED, "30 ft gehen, dann die Treppe nach unten bis B2 nehmen"),
    ("es", ride(STAIRS, 1, 0), NAMED, "Camine 30 ft y luego tome la escalera para bajar hasta B2"),
    ("zh-Hant", ride(ESCALATOR, 3, 0), UNNAMED, "步行 9 公尺後搭手扶梯下 3 層樓到B2"),
    ("zh-Hans", ride(ESCALATOR, 3, 0), UNNAMED, "步行9米后乘自动扶梯下3层楼到B2"),
    (
        "fr",
        ride(ESCALATOR, 3, 0),
        UNNAMED,
        "Marchez 9\u202fm, puis prenez l'escalier mécanique pour descendre de 3 étages"
        " jusqu'au niveau B2",
    ),
    (
        "de",
        ride(ESCALATOR, 3, 0),
        UNNAMED,
        "9 m gehen, dann die Rolltreppe 3 Etagen nach unten bis B2 nehmen",
    ),
    (
        "es",
        ride(ESCALATOR, 3, 0),
        UNNAMED,
        "Camine 9 m y luego tome la escalera mecánica para bajar 3 pisos hasta B2",
    ),
    ("zh-Hant", ride(RAMP, 0, 1), NAMED, "步行 30英尺後走坡道上樓到B1"),
    (
        "fr",
        ride(RAMP, 0, 1),
        NAMED,
        "Marchez 30\u202fpi, puis prenez la rampe pour monter au niveau B1",
    ),
    ("de", ride(RAMP, 0, 1), NAMED, "30 ft gehen, dann die Rampe nach oben bis B1 nehmen"),
    ("es", ride(RAMP, 0, 1), NAMED, "Camine 30 ft y luego tome la rampa para subir hasta B1"),
    ("en", ride(DOOR, 1, 2), NAMED, "Walk 30 ft, then go through the door to G1"),
    ("zh-Hant", ride(DOOR, 1, 2), NAMED, "步行 30英尺後穿過門前往G1"),
    ("zh-Hans", ride(DOOR, 1, 2), NAMED, "步行30英尺后穿过门前往G1"),
    ("fr", ride(DOOR, 1, 2), NAMED, "Marchez 30\u202fpi, puis passez la porte vers le niveau G1"),
    ("de", ride(DOOR, 1, 2), NAMED, "30 ft gehen, dann durch die Tür zu G1 gehen"),
    ("es", ride(DOOR, 1, 2), NAMED, "Camine 30 ft y luego cruce la puerta hacia G1"),
    ("en", turn(Modifier.UTURN), NAMED, "Walk 40 ft, then make a U-turn"),
    ("zh-Hant", turn(Modifier.UTURN), NAMED, "步行 40英尺後迴轉"),
    ("zh-Hans", turn(Modifier.UTURN), NAMED, "步行40英尺后掉头"),
    (
        "fr",
        turn(Modifier.SHARP_LEFT),
        NAMED,
        "Marchez 40\u202fpi, puis tournez franchement à gauche",
    ),
    ("de", turn(Modifier.SLIGHT_RIGHT), NAMED, "40 ft gehen, dann leicht rechts abbiegen"),
    ("es", turn(Modifier.UTURN), NAMED, "Camine 40 ft y luego dé media vuelta"),
    ("zh-Hant", beside(Side.LEFT), NAMED, "步行 40英尺後抵達位於左側的Café 三"),
    ("zh-Hant", beside(Side.RIGHT), UNNAMED, "步行 12 公尺後抵達位於B2右側的目的地"),
    ("zh-Hans", beside(Side.LEFT), NAMED, "步行40英尺后到达位于左侧的Café 三"),
    ("zh-Hans", beside(Side.RIGHT), UNNAMED, "步行12米后到达位于B2右侧的目的地"),
    (
        "fr",
        beside(Side.LEFT),
        NAMED,
        "Marchez 40\u202fpi, puis vous arrivez à Café 三, sur votre gauche",
    ),
    (
        "fr",
        beside(Side.RIGHT),
        UNNAMED,
        "Marchez 12\u202fm, puis vous atteignez votre point d'arrivée au niveau B2,"
        " sur votre droite",
    ),
    ("de", beside(Side.LEFT), NAMED, "40 ft gehen, dann Café 三 auf der linken Seite erreichen"),
    (
        "de",
        beside(Side.RIGHT),
        UNNAMED,
        "12 m gehen, dann das Ziel auf B2 auf der rechten Seite erreichen",
    ),
    ("es", beside(Side.LEFT), NAMED, "Camine 40 ft y luego llegará a Café 三, a su izquierda"),
    (
        "es",
        beside(Side.RIGHT),
        UNNAMED,
        "Camine 12 m y luego llegará a su destino en B2, a su derecha",
    ),
]


@pytest.mark.parametrize(("tag", "found", "words", "sentence"), SECOND)
def test_sentences_word_for_word(tag, found, words, sentence):
    assert found.told(words, LANGUAGES[tag])[1] == sentence


# Nothing walked before the elevator: the action alone, a capital where the language has
# capitals (not inside German's nouns alone: "Den Aufzug").
ALONE = {
    "en": "Take the elevator up 2 floors to G1",
    "zh-Hant": "搭電梯上 2 層樓到G1",
    "zh-Hans": "乘电梯上2层楼到G1",
    "fr": "Prenez l'ascenseur pour monter de 2 étages jusqu'au niveau G1",
    "de": "Den Aufzug 2 Etagen nach oben bis G1 nehmen",
    "es": "Tome el ascensor para subir 2 pisos hasta G1",
}


@pytest.mark.parametrize("tag", SUPPORTED)
def test_an_action_alone_begins_the_sentence(tag):
    says = LANGUAGES[tag]
    assert from_the_elevator().told(NAMED, says)[1] == ALONE[tag]
    assert says.capitalised == (tag not in ("zh-Hant", "zh-Hans"))


# ---------------------------------------------------------------- numbers and plurals


@pytest.mark.parametrize(
    ("says", "counted"),
    [
        (ENGLISH, ["1 floor", "2 floors", "3 floors"]),
        (GERMAN, ["1 Etage", "2 Etagen", "3 Etagen"]),
        (FRENCH, ["1 étage", "2 étages", "3 étages"]),
        (SPANISH, ["1 piso", "2 pisos", "3 pisos"]),
        (TRADITIONAL_CHINESE, ["1 層樓", "2 層樓", "3 層樓"]),
        (SIMPLIFIED_CHINESE, ["1层楼", "2层楼", "3层楼"]),
    ],
    ids=lambda value: value.tag if isinstance(value, Language) else "",
)
def test_floors_are_counted_by_the_languages_plural_rule(says, counted):
    assert [floors(count, says) for count in (1, 2, 3)] == counted


def test_the_plural_rules_are_babels():
    """French counts 0 and 1 alike (CLDR: i = 0,1), English and German do not; a count in
    the thousands is written in the language's number format."""
    assert floors(0, FRENCH) == "0 étage"
    assert floors(0, GERMAN) == "0 Etagen"
    assert floors(0, ENGLISH) == "0 floors"
    assert floors(1200, GERMAN) == "1.200 Etagen"
    assert floors(1200, ENGLISH) == "1200 floors"


@pytest.mark.parametrize(
    ("tag", "feet", "metres", "far"),
    [
        ("en", "40 ft", "12 m", "1200 ft"),  # as English always wrote them
        ("zh-Hant", "40英尺", "12 公尺", "1,200英尺"),
        ("zh-Hans", "40英尺", "12米", "1,200英尺"),
        ("fr", "40\u202fpi", "12\u202fm", "1\u202f200\u202fpi"),
        ("de", "40 ft", "12 m", "1.200 ft"),
        ("es", "40 ft", "12 m", "1.200 ft"),
    ],
)
def test_lengths_are_written_by_babel_in_each_language(tag, feet, metres, far):
    says = LANGUAGES[tag]
    assert length(40.4, "imperial", says) == feet
    assert length(39.4, "metric", says) == metres  # 12.01 m
    assert length(1200.0, "imperial", says) == far
    assert length(0.49, "imperial", says) is None
    assert length(1.6, "metric", says) is None  # 0.49 m


def test_the_walk_that_rounds_to_nothing_is_left_out_in_every_language():
    """1.5 ft walked after the stairs, told in metres: 0 m is not said."""
    stairs = Ride(STAIRS, "s", (30, 0), 0, 1, 15.0, 12.0)
    short = route(leg([(0, 0), (30, 0)]), leg([(30, 0), (30, 1.5)], 1), rides=(stairs,))
    maneuvers = plan_maneuvers(short, 1.0)
    assert maneuvers[-1].type == ManeuverType.ARRIVE and maneuvers[-1].walked == 1.5
    told = {
        tag: instruction(maneuvers[-1], short, UNNAMED, says) for tag, says in LANGUAGES.items()
    }
    assert told == {
        "en": "Arrive at your destination on B1",
        "zh-Hant": "抵達位於B1的目的地",
        "zh-Hans": "到达位于B1的目的地",
        "fr": "Vous atteignez votre point d'arrivée au niveau B1",
        "de": "Das Ziel auf B1 erreichen",
        "es": "Llegará a su destino en B1",
    }


# ---------------------------------------------------------------- the tags


def test_the_supported_tags():
    assert SUPPORTED == ("en", "zh-Hant", "zh-Hans", "fr", "de", "es")
    assert all(LANGUAGES[tag].tag == tag for tag in SUPPORTED)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("en", ENGLISH),
        ("zh-Hant", TRADITIONAL_CHINESE),
        ("zh-hant", TRADITIONAL_CHINESE),  # BCP 47 tags are case-insensitive
        ("ZH-HANS", SIMPLIFIED_CHINESE),
        ("fr", FRENCH),
        ("de", GERMAN),
        ("es", SPANISH),
        ("pt", ENGLISH),
        ("zh", ENGLISH),  # the script is chosen before (the lead's negotiation)
        ("", ENGLISH),
    ],
)
def test_language_of_a_tag(tag, expected):
    assert language_of(tag) is expected
