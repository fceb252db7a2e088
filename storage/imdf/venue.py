"""An IMDF archive read for import: its files within bounds, and the venue as the
import works on it (levels, units, their shapes in the local plane, the report).

`floorgate import-imdf` (docs/imdf.md): this module reads, `storage/imdf/walks.py` gives
the venue walk paths and drawings, `storage/imdf/places.py` its locations, and
`storage/imdf/dataset.py` makes the dataset and imports it.
"""

from __future__ import annotations

import copy
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from parsing.imdf.drawing import DrawnLevel
from parsing.imdf.labels import label_texts, name_language
from parsing.imdf.projection import LocalPlane, plane_for
from parsing.imdf.read import (
    Archive,
    Feature,
    ImdfError,
    feature_type_of,
    is_manifest,
    read_archive,
    read_document,
    require_geometry,
    shown,
)
from storage.imdf.categories import CATEGORY_LANGUAGE
from storage.limits import MAX_NAME_LANGUAGES

# Unit categories drawn but not listed as API units (a configurable choice: --units).
DRAWN_ONLY = frozenset(
    {
        "walkway",
        "stairs",
        "steps",
        "elevator",
        "escalator",
        "ramp",
        "movingwalkway",
        "structure",
        "column",
        "opentobelow",
        "brick",
        "concrete",
        "drywall",
        "glass",
        "wood",
        "vegetation",
        "footbridge",
        "platform",
        "parking",
        "road",
        "railway",
    }
)

# Bounds on what an archive may unpack to: a zip bomb is refused, not inflated.
MAX_ARCHIVE_FILES = 1_000

MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
# A zip member is inflated this much at a time, counted against its header and the bound.
ZIP_READ_CHUNK = 1024 * 1024


# The asset's market unless --market says another (a vendor path's segment: docs/api.md).
IMDF_MARKET = "imdf"


@dataclass(frozen=True)
class ImdfOptions:
    asset_id: str | None = None  # default: the id prefix, else the venue's id
    languages: tuple[str, ...] = ()  # label fallback: these, the manifest's, `en`, any
    units: frozenset[str] | None = None  # categories listed as API units (None: not DRAWN_ONLY)
    snap_tolerance: float = 0.5  # metres
    market: str = IMDF_MARKET
    id_prefix: str | None = None  # readable ids (storage/imdf/ids.py); None: the archive's


def read_venue(path: Path) -> Archive:
    """The venue at `path` in any input form (docs/imdf.md, "Input forms"): a folder or a
    zip of GeoJSON files, or one JSON document. A folder or zip whose only JSON file is
    not named after a feature type is read as such a document. Every form is refused
    alike for a level, unit or opening without a geometry."""
    archive = _read_form(path)
    require_geometry(archive, str(path))
    return archive


def _read_form(path: Path) -> Archive:
    if path.is_file() and not (path.suffix.lower() == ".zip" or zipfile.is_zipfile(path)):
        _check_bounds(1, path.stat().st_size, path)
        return read_document(_read_within(path, MAX_ARCHIVE_BYTES), str(path))
    files = read_files(path)
    where = "folder" if path.is_dir() else "zip"
    named = [n for n in files if feature_type_of(n) is not None]
    others = [n for n in files if not is_manifest(n)]
    if not named and len(others) == 1:
        archive = read_document(files[others[0]], f"{path}: {shown(others[0])}")
        archive.form = f"{archive.form}, the only JSON file of a {where}"
        return archive
    return read_archive(files, f"{where} of IMDF GeoJSON files", str(path))


def read_files(path: Path) -> dict[str, bytes]:
    """The archive's JSON files by name: a folder (recursively) or a zip, within bounds."""
    if path.is_dir():
        found = sorted(
            p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (".json", ".geojson")
        )
        _check_bounds(len(found), sum(p.stat().st_size for p in found), path)
        files, budget = {}, MAX_ARCHIVE_BYTES
        for p in found:
            files[str(p.relative_to(path))] = data = _read_within(p, budget)
            budget -= len(data)
        return files
    if not path.is_file():
        raise ImdfError(f"{path}: no such file or folder")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = [
                i
                for i in archive.infolist()
                if not i.is_dir() and i.filename.lower().endswith((".json", ".geojson"))
            ]
            _check_bounds(len(infos), sum(i.file_size for i in infos), path)
            files, budget = {}, MAX_ARCHIVE_BYTES
            for info in infos:
                files[info.filename] = data = _member(archive, info, budget, path)
                budget -= len(data)
            return files
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError) as error:
        raise ImdfError(f"{path}: not a readable zip archive ({error})") from None


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, path: Path) -> bytes:
    """A zip member's bytes, inflated ZIP_READ_CHUNK at a time and counted as they come:
    refused once past the size its header declares or past `budget`, so that a member
    whose header lies is inflated at most a chunk beyond it, never whole.

    zipfile cuts a member at its declared size and then fails its CRC, which would hide
    the lie behind a CRC error: the member is opened as if declared two chunks larger,
    so the count sees it first. An honest member ends where its header says, and
    zipfile checks its CRC there. Only stored and deflated members are read: zipfile
    inflates bzip2 and LZMA a whole read of packed bytes at once, without a bound."""
    name = shown(info.filename)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ImdfError(
            f"{path}: {name} is compressed with method {info.compress_type}; "
            "only stored and deflated members are read"
        )
    declared = info.file_size
    opened = copy.copy(info)
    opened.file_size = declared + 2 * ZIP_READ_CHUNK
    chunks: list[bytes] = []
    count = 0
    with archive.open(opened) as member:
        while chunk := member.read(ZIP_READ_CHUNK):
            count += len(chunk)
            if count > declared:
                raise ImdfError(f"{path}: {name} is larger than its header says")
            if count > budget:
                raise ImdfError(f"{path}: grew past {MAX_ARCHIVE_BYTES} bytes of JSON while read")
            chunks.append(chunk)
    return b"".join(chunks)


def _read_within(path: Path, budget: int) -> bytes:
    """The file's bytes, refused past `budget` (it may have grown since its size was
    checked) or when it cannot be read."""
    try:
        with path.open("rb") as file:
            data = file.read(budget + 1)
    except OSError as error:
        raise ImdfError(f"{path}: cannot be read ({error.strerror})") from None
    if len(data) > budget:
        raise ImdfError(f"{path}: grew past {MAX_ARCHIVE_BYTES} bytes of JSON while read")
    return data


def _check_bounds(count: int, size: int, path: Path) -> None:
    if count > MAX_ARCHIVE_FILES:
        raise ImdfError(f"{path}: {count} JSON files, at most {MAX_ARCHIVE_FILES}")
    if size > MAX_ARCHIVE_BYTES:
        raise ImdfError(f"{path}: {size} bytes of JSON, at most {MAX_ARCHIVE_BYTES}")


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


@dataclass
class Unit:
    feature: Feature
    level: str
    shape: BaseGeometry
    category: str
    name: str  # given by storage.imdf.names.name_units once every unit is read
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
            self.report.add("invalid polygon, repaired", feature.id)
            shape = shapely.make_valid(shape)
            polygons = [g for g in getattr(shape, "geoms", [shape]) if isinstance(g, Polygon)]
            shape = (
                shapely.MultiPolygon(polygons)
                if len(polygons) > 1
                else (polygons[0] if polygons else None)
            )
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
            names = self.texts(feature.properties.get("name")) or {
                CATEGORY_LANGUAGE: f"Level {ordinal:g}"
            }
            name = next(iter(names.values()))
            short = self.text(feature.properties.get("short_name")) or name
            outline = self.shape(feature, (Polygon, shapely.MultiPolygon))
            found.append(Level(feature, name, short, float(ordinal), outline, names=names))
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
