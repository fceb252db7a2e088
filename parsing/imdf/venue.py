"""The IMDF venue as the import works on it: the archive's levels and units in the local
plane, their names in the venue's languages, and the report of what was skipped or
repaired. Pure: the archive comes read (`storage/imdf/files.py` reads a folder, a zip or
a document within bounds).

`floorgate import-imdf` (docs/imdf.md): read (`parsing/imdf/`), walked and analysed
(`routing/imdf/walks.py`, `routing/imdf/reachability.py`), written
(`storage/imdf/dataset.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from parsing.geo.valid_shapes import SLIVER_M2, made_valid, parts_of
from parsing.imdf.categories import CATEGORY_LANGUAGE, DOORWAYS, SOLID
from parsing.imdf.category_words import LEVEL_WORD, word_in
from parsing.imdf.drawing import DrawnLevel
from parsing.imdf.labels import label_texts, name_language
from parsing.imdf.projection import LocalPlane, plane_for
from parsing.imdf.read import Archive, Feature, ImdfError
from parsing.limits import MAX_NAME_LANGUAGES

# Unit categories drawn but not listed as API units (a configurable choice: --units).
DRAWN_ONLY = SOLID | {
    "walkway",
    "stairs",
    "steps",
    "elevator",
    "escalator",
    "ramp",
    "movingwalkway",
    "footbridge",
    "platform",
    "parking",
    "road",
    "railway",
}

# The asset's market unless --market says another (a vendor path's segment: docs/api.md).
IMDF_MARKET = "imdf"


@dataclass(frozen=True)
class ImdfOptions:
    asset_id: str | None = None  # default: the id prefix, else the venue's id
    languages: tuple[str, ...] = ()  # label fallback: these, the manifest's, `en`, any
    units: frozenset[str] | None = None  # categories listed as API units (None: not DRAWN_ONLY)
    snap_tolerance: float = 0.5  # metres
    market: str = IMDF_MARKET
    id_prefix: str | None = None  # readable ids (parsing/imdf/ids.py); None: the archive's
    # Measure route accuracy against the exact walk (routing/reference) for the health
    # report: off unless asked, as the reference costs seconds on big open halls.
    accuracy: bool = False


@dataclass
class Level:
    feature: Feature
    name: str  # in the venue's language (else the label's first): drawings, reports
    short: str
    ordinal: float
    outline: BaseGeometry | None
    index: int = 0
    drawn: DrawnLevel | None = None
    names: dict[str, str] = field(default_factory=dict)  # every language, `name`'s first
    generated: bool = False  # no name given: "Level <ordinal>" (`level_names`)


def level_names(ordinal: float, languages: Iterable[str]) -> dict[str, str]:
    """The name of a level nobody named, in each of `languages` ("Level 2", "樓層 2")."""
    return {language: f"{word_in(LEVEL_WORD, language)} {ordinal:g}" for language in languages}


@dataclass(frozen=True)
class Doorway:
    """An entrance or an emergency exit (`categories.DOORWAYS`): a place of its own, at
    the middle of its opening's line."""

    feature: Feature
    level: str
    point: tuple[float, float]
    word: str  # of its generated name (`category_words`)
    tag: tuple[str, str]  # what makes it an entrance or an exit to a search


@dataclass
class Unit:
    feature: Feature
    level: str
    shape: BaseGeometry
    category: str
    name: str  # given by parsing.imdf.names.name_units once every unit is read
    point: tuple[float, float]
    listed: bool
    names: dict[str, str] = field(default_factory=dict)  # every language, `name`'s first


class Venue:
    """What the mapping works on: the archive's features in the local plane."""

    def __init__(self, archive: Archive, options: ImdfOptions) -> None:
        self.archive = archive
        self.report = archive.report
        manifest_language = archive.manifest.get("language")
        if not isinstance(manifest_language, str) or not manifest_language:
            manifest_language = first_language(archive)
        chain = (*options.languages, *([manifest_language] if manifest_language else []), "en")
        # Labels are read in these languages, in order; the first is the venue's language
        # (the dataset's `language`, issue 51): tags that are not well formed are dropped.
        self.languages = tuple(dict.fromkeys(filter(None, map(name_language, chain))))
        self.language = self.languages[0]
        venues = archive.of("venue")
        if len(venues) > 1:
            self.report.add("several venues, the first imported", ", ".join(v.id for v in venues))
        self.venue = venues[0] if venues else None
        if self.venue is None and options.asset_id is None and options.id_prefix is None:
            raise ImdfError("the archive has no venue: give --asset-id")
        given = options.asset_id or options.id_prefix
        self.asset_id = given or (self.venue.id if self.venue else "")
        geometries = [
            f.geometry
            for kind in ("venue", "level", "unit")
            for f in archive.of(kind)
            if f.geometry
        ]
        if not geometries:
            raise ImdfError("the archive has no venue, level or unit geometry")
        self.plane: LocalPlane = plane_for(geometries)
        self.levels = self._levels()
        if not self.levels:
            raise ImdfError("the archive has no level")
        self.units = self._units(options)
        self.anchors = archive.by_id("anchor")
        self.doorways = self._doorways()

    def _doorways(self) -> list[Doorway]:
        """The entrances and emergency exits, read once for names and places; one
        without a line or a level is reported and left out."""
        found = []
        for feature in self.archive.of("opening"):
            doorway = DOORWAYS.get(feature.category)
            if doorway is None:
                continue
            line = self.shape(feature, (LineString,))
            level = str(feature.properties.get("level_id"))
            if line is None or level not in self.levels:
                self.report.add("entrance without a line or a level, no place", feature.id)
                continue
            middle = line.interpolate(0.5, normalized=True)
            found.append(Doorway(feature, level, (middle.x, middle.y), *doorway))
        return found

    def units_of(self, feature: Feature) -> list[Unit]:
        """The venue's units a feature is in: an amenity's `unit_ids`, an anchor's
        `unit_id`, an occupant's anchor's."""
        properties = feature.properties
        if feature.feature_type == "occupant":
            anchor = self.anchors.get(str(properties.get("anchor_id")))
            return self.units_of(anchor) if anchor is not None else []
        if feature.feature_type == "amenity":
            ids = properties.get("unit_ids")
            ids = ids if isinstance(ids, list) else []
        else:
            ids = [properties.get("unit_id")]
        return [self.units[str(i)] for i in ids if str(i) in self.units]

    def text(self, value: Any) -> str | None:
        """A label's text in the venue's language (else its first), read with remarks."""
        return next(iter(self.texts(value).values()), None)

    def texts(self, value: Any) -> dict[str, str]:
        """Every language of a label, read with remarks, the one `text` gives first; at
        most MAX_NAME_LANGUAGES, as a dataset's name holds (the rest reported)."""
        found = label_texts(value, self.languages, self.report)
        if len(found) > MAX_NAME_LANGUAGES:
            kept = list(found)[:MAX_NAME_LANGUAGES]
            self.report.add(
                f"label in more than {MAX_NAME_LANGUAGES} languages, the first kept",
                ", ".join(list(found)[MAX_NAME_LANGUAGES:]),
            )
            found = {tag: found[tag] for tag in kept}
        return found

    def shape(self, feature: Feature, kinds: tuple[type, ...]) -> BaseGeometry | None:
        if feature.geometry is None:
            return None
        try:
            shape = self.plane.to_plane(feature.geometry)
        except (ValueError, TypeError, AttributeError, shapely.errors.ShapelyError):
            self.report.add("geometry that cannot be read, skipped", feature.id)
            return None
        if not isinstance(shape, kinds):
            self.report.add(
                f"{feature.feature_type} geometry of another type, skipped",
                f"{feature.id}: {shape.geom_type}",
            )
            return None
        if isinstance(shape, Polygon | shapely.MultiPolygon) and not shape.is_valid:
            # Every part it encloses kept (a bow-tie both triangles; a part nested in a
            # GEOS collection too), but the slivers the repair leaves of a fold.
            self.report.add("invalid polygon, repaired", feature.id)
            fixed = made_valid(shape)
            parts = parts_of(fixed, SLIVER_M2) if fixed is not None else []
            return shapely.MultiPolygon(parts) if len(parts) > 1 else next(iter(parts), None)
        return shape

    def point_of(self, feature: Feature) -> tuple[float, float] | None:
        display = feature.properties.get("display_point")
        if isinstance(display, dict) and isinstance(display.get("coordinates"), list):
            coordinates = display["coordinates"]
            if len(coordinates) >= 2 and all(isinstance(c, int | float) for c in coordinates[:2]):
                return self.plane.point(float(coordinates[0]), float(coordinates[1]))
        return None

    def _levels(self) -> dict[str, Level]:
        found = []
        for feature in self.archive.of("level"):
            ordinal = feature.properties.get("ordinal")
            if not isinstance(ordinal, int | float) or isinstance(ordinal, bool):
                self.report.add("level without a numeric ordinal, taken as 0", feature.id)
                ordinal = 0
            given = self.texts(feature.properties.get("name"))
            names = given or level_names(ordinal, (CATEGORY_LANGUAGE,))
            name = next(iter(names.values()))
            short = self.text(feature.properties.get("short_name")) or name
            outline = self.shape(feature, (Polygon, shapely.MultiPolygon))
            level = Level(feature, name, short, float(ordinal), outline, names=names)
            level.generated = not given
            found.append(level)
        found.sort(key=lambda level: (level.ordinal, level.feature.id))
        for index, level in enumerate(found):
            level.index = index
        return {level.feature.id: level for level in found}

    def _units(self, options: ImdfOptions) -> dict[str, Unit]:
        units = {}
        for feature in self.archive.of("unit"):
            level = str(feature.properties.get("level_id"))
            if level not in self.levels:
                self.report.add("unit on an unknown level, skipped", f"{feature.id}: {level}")
                continue
            shape = self.shape(feature, (Polygon, shapely.MultiPolygon))
            if shape is None or shape.is_empty:
                self.report.add("unit without a polygon, skipped", feature.id)
                continue
            category = feature.category.lower()
            listed = (
                category in options.units
                if options.units is not None
                else category not in DRAWN_ONLY
            )
            point = self.point_of(feature)
            if point is None or not shape.contains(Point(point)):
                if point is not None:
                    self.report.add("display point outside its unit, moved inside", feature.id)
                polygon = max(getattr(shape, "geoms", [shape]), key=lambda g: g.area)
                inside = polylabel(polygon, 0.05)
                point = (inside.x, inside.y)
            units[feature.id] = Unit(feature, level, shape, category, "", point, listed)
        return units


def first_language(archive: Archive) -> str | None:
    """The venue's language when the manifest gives none: a `language` property of the
    venue, else the first language of the venue's name, else of any level or unit name."""
    venues = archive.of("venue")
    given = venues[0].properties.get("language") if venues else None
    if isinstance(given, str) and given:
        return given
    for kind in ("venue", "level", "unit"):
        for feature in archive.of(kind):
            for key in ("name", "alt_name"):
                value = feature.properties.get(key)
                if isinstance(value, dict):
                    for language, text in value.items():
                        if isinstance(text, str) and text:
                            return str(language)
    return None
