"""The words of a route's maneuvers in one table, as OSRM keeps its own (indexed by an
enum), so that what routing decides, what the sentences say, what the schema describes
and what the viewer draws cannot drift apart.

A row per maneuver type and per turn modifier: the changes of bearing a modifier stands
for and the viewer's icon of each (`viewer_icons`, written to the viewer's
`route/vocabulary.json` by `make generate`). The sentences are one `Language` each,
templates with named placeholders, so that a language is one more of them (issue 51):
English, Traditional and Simplified Chinese, French, German and Spanish, each in its own
idiom. docs/routing.md, "The words", says how to add a word or a language.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class ManeuverType(StrEnum):
    """A maneuver's `type`."""

    DEPART = "depart"
    TURN = "turn"
    CONNECTOR = "connector"
    ARRIVE = "arrive"


class Modifier(StrEnum):
    """A turn's `modifier`."""

    UTURN = "uturn"
    SHARP_RIGHT = "sharp right"
    RIGHT = "right"
    SLIGHT_RIGHT = "slight right"
    SLIGHT_LEFT = "slight left"
    LEFT = "left"
    SHARP_LEFT = "sharp left"


class Side(StrEnum):
    """The side an arrival's destination lies on (`side`)."""

    LEFT = "left"
    RIGHT = "right"


Ends = Literal["[)", "(]", "[]", "()"]


@dataclass(frozen=True)
class Range:
    """Changes of bearing from `low` to `high` degrees, positive to the right, each end in
    or out as `ends` writes it ("[)": `low` in, `high` out)."""

    low: float
    high: float
    ends: Ends = "[)"

    def holds(self, change: float) -> bool:
        above = change >= self.low if self.ends[0] == "[" else change > self.low
        below = change <= self.high if self.ends[1] == "]" else change < self.high
        return above and below


@dataclass(frozen=True)
class TypeWord:
    """A maneuver type: what the schema's description adds to it, and the viewer's icon
    (of a turn without a modifier, of a connector of a kind without an icon of its own)."""

    note: str
    icon: str


@dataclass(frozen=True)
class TurnWord:
    """A turn modifier: the changes of bearing (whole degrees, d = after - before brought
    into (-180, 180]) it stands for, its band as the schema's description names it, and
    the viewer's icon."""

    changes: tuple[Range, ...]
    band: str
    icon: str


MERGE_DEG = 20  # a smaller change of bearing is no turn (the bends merge)
STRAIGHT = Range(-MERGE_DEG, MERGE_DEG, "()")  # no modifier: no turn

TYPES: dict[ManeuverType, TypeWord] = {
    ManeuverType.DEPART: TypeWord("first", "depart"),
    ManeuverType.TURN: TypeWord("", "turn-straight"),
    ManeuverType.CONNECTOR: TypeWord(
        "one per connector taken, where it is entered", "connector-other"
    ),
    ManeuverType.ARRIVE: TypeWord("last", "arrive"),
}

TURNS: dict[Modifier, TurnWord] = {
    Modifier.UTURN: TurnWord(
        (Range(170, 180, "(]"), Range(-180, -170, "()")), "U-turn", "turn-uturn"
    ),
    Modifier.SHARP_RIGHT: TurnWord((Range(120, 170, "[]"),), "sharp", "turn-sharp-right"),
    Modifier.RIGHT: TurnWord((Range(60, 120),), "plain", "turn-right"),
    Modifier.SLIGHT_RIGHT: TurnWord((Range(MERGE_DEG, 60),), "slight", "turn-slight-right"),
    Modifier.SLIGHT_LEFT: TurnWord((Range(-60, -MERGE_DEG, "(]"),), "slight", "turn-slight-left"),
    Modifier.LEFT: TurnWord((Range(-120, -60, "(]"),), "plain", "turn-left"),
    Modifier.SHARP_LEFT: TurnWord((Range(-170, -120, "[]"),), "sharp", "turn-sharp-left"),
}


@dataclass(frozen=True)
class Language:
    """The sentences of one language: templates with named placeholders, a phrase per
    turn modifier and per side, a name per connector kind. `instructions` picks the
    template; the template orders the words, so a language never has to follow English's
    order. What English never needed is here too: the connectors' names in the form the
    templates need (an article and case, a verb), the floor counts by plural category,
    whether a sentence begins with a capital."""

    tag: str  # BCP 47; Babel's locale: plural rules, number and unit formats
    walked: str  # {length} walked since the previous maneuver, then its {action}
    depart: str  # {start}: the start's name
    depart_unnamed: str  # an ad-hoc start
    turns: Mapping[Modifier, str]
    turn_at: str  # {turn} (a phrase of `turns`) at {landmark}
    then: str  # {action}, then {turn}: a turn told with the one before it (MERGE_FT)
    up: str  # {connector} (a name of `connectors`) up to {floor}, one floor
    down: str
    up_floors: str  # likewise, {floors} (a form of `floors`) in one ride
    down_floors: str
    through: str  # a door to {floor}, a level of the same height (issue 48)
    arrive: str  # {end}: the destination's name
    arrive_beside: str  # {end}, {side} (a phrase of `sides`)
    arrive_unnamed: str  # an ad-hoc destination, on {floor}
    arrive_unnamed_beside: str  # likewise, {side}
    sides: Mapping[Side, str]
    # By kind word (`routing.model.CONNECTOR_KINDS`), as {connector} says it: German's
    # with its article in the accusative, Chinese's with the verb of taking it.
    connectors: Mapping[str, str]
    # "{count} floors" by CLDR plural category (Babel's `Locale.plural_form`): one form
    # for each category the language has, "other" always.
    floors: Mapping[str, str]
    capitalised: bool = True  # a sentence begins with a capital (not in Chinese)
    # The pattern of a number (Babel's `format`) where not the locale's own: English keeps
    # the ungrouped "1200 ft" it always wrote.
    number_format: str | None = None


ENGLISH = Language(
    tag="en",
    walked="Walk {length}, then {action}",
    depart="start at {start}",
    depart_unnamed="start at your location",
    turns={
        Modifier.UTURN: "make a U-turn",
        Modifier.SHARP_RIGHT: "turn sharply right",
        Modifier.RIGHT: "turn right",
        Modifier.SLIGHT_RIGHT: "turn slightly right",
        Modifier.SLIGHT_LEFT: "turn slightly left",
        Modifier.LEFT: "turn left",
        Modifier.SHARP_LEFT: "turn sharply left",
    },
    turn_at="{turn} at {landmark}",
    then="{action}, then {turn}",
    up="take the {connector} up to {floor}",
    down="take the {connector} down to {floor}",
    up_floors="take the {connector} up {floors} to {floor}",
    down_floors="take the {connector} down {floors} to {floor}",
    through="go through the door to {floor}",
    arrive="arrive at {end}",
    arrive_beside="arrive at {end} {side}",
    arrive_unnamed="arrive at your destination on {floor}",
    arrive_unnamed_beside="arrive at your destination on {floor}, {side}",
    sides={Side.LEFT: "on your left", Side.RIGHT: "on your right"},
    connectors={
        "stairs": "stairs",
        "elevator": "elevator",
        "ramp": "ramp",
        "escalator": "escalator",
        "door": "door",
    },
    floors={"one": "{count} floor", "other": "{count} floors"},
    number_format="0",
)

# Taiwan's usage: 公尺 as Babel writes metres, 樓 for floors, 您 and 目前位置.
TRADITIONAL_CHINESE = Language(
    tag="zh-Hant",
    walked="步行 {length}後{action}",
    depart="從{start}出發",
    depart_unnamed="從目前位置出發",
    turns={
        Modifier.UTURN: "迴轉",
        Modifier.SHARP_RIGHT: "向右急轉",
        Modifier.RIGHT: "右轉",
        Modifier.SLIGHT_RIGHT: "稍微右轉",
        Modifier.SLIGHT_LEFT: "稍微左轉",
        Modifier.LEFT: "左轉",
        Modifier.SHARP_LEFT: "向左急轉",
    },
    turn_at="在{landmark}{turn}",
    then="{action}，然後{turn}",  # noqa: RUF001 (Chinese writes a full-width comma)
    up="{connector}上樓到{floor}",
    down="{connector}下樓到{floor}",
    up_floors="{connector}上 {floors}到{floor}",
    down_floors="{connector}下 {floors}到{floor}",
    through="穿過門前往{floor}",
    arrive="抵達{end}",
    arrive_beside="抵達位於{side}的{end}",
    arrive_unnamed="抵達位於{floor}的目的地",
    arrive_unnamed_beside="抵達位於{floor}{side}的目的地",
    sides={Side.LEFT: "左側", Side.RIGHT: "右側"},
    connectors={
        "stairs": "走樓梯",
        "elevator": "搭電梯",
        "ramp": "走坡道",
        "escalator": "搭手扶梯",
        "door": "穿過門",
    },
    floors={"other": "{count} 層樓"},
    capitalised=False,
)

# Mainland usage: 米 as Babel writes metres (no space, as Babel's "12米"), 层 for floors.
SIMPLIFIED_CHINESE = Language(
    tag="zh-Hans",
    walked="步行{length}后{action}",
    depart="从{start}出发",
    depart_unnamed="从当前位置出发",
    turns={
        Modifier.UTURN: "掉头",
        Modifier.SHARP_RIGHT: "向右急转",
        Modifier.RIGHT: "右转",
        Modifier.SLIGHT_RIGHT: "稍向右转",
        Modifier.SLIGHT_LEFT: "稍向左转",
        Modifier.LEFT: "左转",
        Modifier.SHARP_LEFT: "向左急转",
    },
    turn_at="在{landmark}{turn}",
    then="{action}，然后{turn}",  # noqa: RUF001 (Chinese writes a full-width comma)
    up="{connector}上楼到{floor}",
    down="{connector}下楼到{floor}",
    up_floors="{connector}上{floors}到{floor}",
    down_floors="{connector}下{floors}到{floor}",
    through="穿过门前往{floor}",
    arrive="到达{end}",
    arrive_beside="到达位于{side}的{end}",
    arrive_unnamed="到达位于{floor}的目的地",
    arrive_unnamed_beside="到达位于{floor}{side}的目的地",
    sides={Side.LEFT: "左侧", Side.RIGHT: "右侧"},
    connectors={
        "stairs": "走楼梯",
        "elevator": "乘电梯",
        "ramp": "走坡道",
        "escalator": "乘自动扶梯",
        "door": "穿过门",
    },
    floors={"other": "{count}层楼"},
    capitalised=False,
)

# "au niveau B2": a floor's name after "niveau", so that no "à"/"de" has to contract or
# elide before a name ("au", "d'"); likewise "devant" and "depuis" before places.
FRENCH = Language(
    tag="fr",
    walked="Marchez {length}, puis {action}",
    depart="partez depuis {start}",
    depart_unnamed="partez depuis votre position",
    turns={
        Modifier.UTURN: "faites demi-tour",
        Modifier.SHARP_RIGHT: "tournez franchement à droite",
        Modifier.RIGHT: "tournez à droite",
        Modifier.SLIGHT_RIGHT: "tournez légèrement à droite",
        Modifier.SLIGHT_LEFT: "tournez légèrement à gauche",
        Modifier.LEFT: "tournez à gauche",
        Modifier.SHARP_LEFT: "tournez franchement à gauche",
    },
    turn_at="{turn} devant {landmark}",
    then="{action}, puis {turn}",
    up="prenez {connector} pour monter au niveau {floor}",
    down="prenez {connector} pour descendre au niveau {floor}",
    up_floors="prenez {connector} pour monter de {floors} jusqu'au niveau {floor}",
    down_floors="prenez {connector} pour descendre de {floors} jusqu'au niveau {floor}",
    through="passez la porte vers le niveau {floor}",
    arrive="vous arrivez à {end}",
    arrive_beside="vous arrivez à {end}, {side}",
    arrive_unnamed="vous atteignez votre point d'arrivée au niveau {floor}",
    arrive_unnamed_beside="vous atteignez votre point d'arrivée au niveau {floor}, {side}",
    sides={Side.LEFT: "sur votre gauche", Side.RIGHT: "sur votre droite"},
    connectors={
        "stairs": "l'escalier",
        "elevator": "l'ascenseur",
        "ramp": "la rampe",
        "escalator": "l'escalier mécanique",
        "door": "la porte",
    },
    floors={"one": "{count} étage", "many": "{count} étages", "other": "{count} étages"},
)

# The infinitive of German directions ("links abbiegen"): the place of a turn goes before
# the verb ("bei X links abbiegen"), where the imperative would have to split around it.
GERMAN = Language(
    tag="de",
    walked="{length} gehen, dann {action}",
    depart="bei {start} starten",
    depart_unnamed="an Ihrem Standort starten",
    turns={
        Modifier.UTURN: "umkehren",
        Modifier.SHARP_RIGHT: "scharf rechts abbiegen",
        Modifier.RIGHT: "rechts abbiegen",
        Modifier.SLIGHT_RIGHT: "leicht rechts abbiegen",
        Modifier.SLIGHT_LEFT: "leicht links abbiegen",
        Modifier.LEFT: "links abbiegen",
        Modifier.SHARP_LEFT: "scharf links abbiegen",
    },
    turn_at="bei {landmark} {turn}",
    then="{action}, dann {turn}",
    up="{connector} nach oben bis {floor} nehmen",
    down="{connector} nach unten bis {floor} nehmen",
    up_floors="{connector} {floors} nach oben bis {floor} nehmen",
    down_floors="{connector} {floors} nach unten bis {floor} nehmen",
    through="durch die Tür zu {floor} gehen",
    arrive="{end} erreichen",
    arrive_beside="{end} {side} erreichen",
    arrive_unnamed="das Ziel auf {floor} erreichen",
    arrive_unnamed_beside="das Ziel auf {floor} {side} erreichen",
    sides={Side.LEFT: "auf der linken Seite", Side.RIGHT: "auf der rechten Seite"},
    connectors={
        "stairs": "die Treppe",
        "elevator": "den Aufzug",
        "ramp": "die Rampe",
        "escalator": "die Rolltreppe",
        "door": "die Tür",
    },
    floors={"one": "{count} Etage", "other": "{count} Etagen"},
)

SPANISH = Language(
    tag="es",
    walked="Camine {length} y luego {action}",
    depart="comience en {start}",
    depart_unnamed="comience en su ubicación",
    turns={
        Modifier.UTURN: "dé media vuelta",
        Modifier.SHARP_RIGHT: "gire bruscamente a la derecha",
        Modifier.RIGHT: "gire a la derecha",
        Modifier.SLIGHT_RIGHT: "gire ligeramente a la derecha",
        Modifier.SLIGHT_LEFT: "gire ligeramente a la izquierda",
        Modifier.LEFT: "gire a la izquierda",
        Modifier.SHARP_LEFT: "gire bruscamente a la izquierda",
    },
    turn_at="{turn} en {landmark}",
    then="{action} y luego {turn}",
    up="tome {connector} para subir hasta {floor}",
    down="tome {connector} para bajar hasta {floor}",
    up_floors="tome {connector} para subir {floors} hasta {floor}",
    down_floors="tome {connector} para bajar {floors} hasta {floor}",
    through="cruce la puerta hacia {floor}",
    arrive="llegará a {end}",
    arrive_beside="llegará a {end}, {side}",
    arrive_unnamed="llegará a su destino en {floor}",
    arrive_unnamed_beside="llegará a su destino en {floor}, {side}",
    sides={Side.LEFT: "a su izquierda", Side.RIGHT: "a su derecha"},
    connectors={
        "stairs": "la escalera",
        "elevator": "el ascensor",
        "ramp": "la rampa",
        "escalator": "la escalera mecánica",
        "door": "la puerta",
    },
    floors={"one": "{count} piso", "many": "{count} pisos", "other": "{count} pisos"},
)

LANGUAGES: dict[str, Language] = {
    language.tag: language
    for language in (
        ENGLISH,
        TRADITIONAL_CHINESE,
        SIMPLIFIED_CHINESE,
        FRENCH,
        GERMAN,
        SPANISH,
    )
}  # by BCP 47 tag
SUPPORTED = tuple(LANGUAGES)
_BY_FOLDED_TAG = {tag.casefold(): language for tag, language in LANGUAGES.items()}


def language_of(tag: str) -> Language:
    """The Language of a supported tag (BCP 47 tags are case-insensitive: "zh-hant" is
    "zh-Hant"), else English: the choice among what a visitor accepts is made before."""
    return _BY_FOLDED_TAG.get(tag.casefold(), ENGLISH)


def _lookup(spans: list[tuple[Range, Modifier | None]]) -> Callable[[float], Modifier | None]:
    """The word of a change of bearing, by bisection over the ranges sorted (they tile
    (-180, 180], tests/routing/test_vocabulary.py): the turn rule is asked for every stop
    each time a neighbour is dropped, so it must cost no more than the comparisons it
    replaced (a closure: a call of an object's `__call__` costs a third more)."""
    ordered = sorted(spans, key=lambda span: (span[0].low, span[0].ends[0] == "("))
    highs = [found.high for found, _ in ordered]
    open_high = [found.ends[1] == ")" for found, _ in ordered]
    words = [word for _, word in ordered]

    def modifier_of(change: float) -> Modifier | None:
        k = bisect_left(highs, change)
        if open_high[k] and highs[k] == change:
            k += 1
        return words[k]

    return modifier_of


modifier_of = _lookup(
    [(STRAIGHT, None), *((found, word) for word, row in TURNS.items() for found in row.changes)]
)
"""The modifier of a change of bearing in (-180, 180]; None under MERGE_DEG (no turn)."""


def viewer_icons() -> dict[str, dict[str, str]]:
    """The viewer's `route/vocabulary.json`: the icon of each type and each modifier
    (`route/icons.js` draws them by name)."""
    return {
        "types": {str(kind): word.icon for kind, word in TYPES.items()},
        "modifiers": {str(word): row.icon for word, row in TURNS.items()},
    }
