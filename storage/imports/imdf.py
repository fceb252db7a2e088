"""`floorgate import-imdf PATH`: an IMDF venue as a floorgate asset (issue 19, docs/imdf.md).

The archive (a `.zip`, or a folder of its GeoJSON files) is read leniently
(`parsing.imdf.read`), projected to a local plane (`parsing.imdf.projection`), given
walk paths generated from its rooms and doors (`routing.imdf.paths`) and drawn in
floorgate's SVG conventions (`parsing.imdf.drawing`). The result is an ordinary dataset
(docs/dataset.md) plus drawings, imported by the dataset importer with its
all-or-nothing guarantee, or written to a folder for review (`--out`).
"""

from __future__ import annotations

import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import shapely
from shapely.geometry import LineString, MultiLineString, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from parsing.imdf.drawing import DrawnLevel, venue_svg
from parsing.imdf.projection import Canvas, LocalPlane, plane_for
from parsing.imdf.read import Archive, Feature, Report, label, read_archive
from parsing.limits import SvgLimits
from routing.imdf.paths import Door, Space, Traversal, WalkNetwork, walk_network
from storage.database import Store
from storage.datasets.fields import DatasetError
from storage.datasets.structure import Inputs
from storage.datasets.validation import validate_against
from storage.imports.importer import import_data
from storage.imports.writer import ImportReport
from storage.limits import IMPORT_TRANSACTION_DOCUMENTS

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
NOT_WALKABLE = frozenset(
    {
        "structure",
        "column",
        "opentobelow",
        "brick",
        "concrete",
        "drywall",
        "glass",
        "wood",
        "vegetation",
        "nonpublic",
    }
)
RESTRICTED = frozenset({"employeesonly", "restricted"})
CONNECTOR_KIND = {
    "stairs": "stairs",
    "steps": "stairs",
    "elevator": "elevator",
    "escalator": "escalator",
    "movingwalkway": "escalator",
    "ramp": "ramp",
}
NO_WHEELCHAIR = frozenset({"stairs", "steps", "escalator"})
CLOSED_OPENINGS = frozenset({"emergencyexit", "automobile", "service"})
NO_WHEELCHAIR_DOORS = frozenset({"revolving", "turnstile"})
RELATIONSHIP_KIND = {
    "stairs": "stairs",
    "elevator": "elevator",
    "escalator": "escalator",
    "movingwalkway": "escalator",
    "ramp": "ramp",
}
# Bounds on what an archive may unpack to: a zip bomb is refused, not inflated.
MAX_ARCHIVE_FILES = 1_000
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
SVG_PATH = "maps/{name}.svg"


class ImdfError(ValueError):
    """An archive that cannot be read at all (not a folder or a zip, too large, no level)."""


@dataclass(frozen=True)
class ImdfOptions:
    asset_id: str | None = None  # default: the venue's id
    languages: tuple[str, ...] = ()  # label fallback: these, the manifest's, `en`, any
    units: frozenset[str] | None = None  # categories listed as API units (None: not DRAWN_ONLY)
    snap_tolerance: float = 0.5  # metres


@dataclass
class ImdfDataset:
    data: dict[str, Any]
    svgs: dict[str, str]  # by map id
    report: Report
    summary: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- reading the archive


def read_files(path: Path) -> dict[str, bytes]:
    """The archive's JSON files by name: a folder (recursively) or a zip, within bounds."""
    if path.is_dir():
        found = sorted(
            p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (".json", ".geojson")
        )
        _check_bounds(len(found), sum(p.stat().st_size for p in found), path)
        return {str(p.relative_to(path)): p.read_bytes() for p in found}
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
            files = {}
            for info in infos:
                with archive.open(info) as member:
                    data = member.read(MAX_ARCHIVE_BYTES + 1)  # the header's size may lie
                if len(data) > info.file_size:
                    raise ImdfError(f"{path}: {info.filename} is larger than its header says")
                files[info.filename] = data
            return files
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError) as error:
        raise ImdfError(f"{path}: not a readable zip archive ({error})") from None


def _check_bounds(count: int, size: int, path: Path) -> None:
    if count > MAX_ARCHIVE_FILES:
        raise ImdfError(f"{path}: {count} JSON files, at most {MAX_ARCHIVE_FILES}")
    if size > MAX_ARCHIVE_BYTES:
        raise ImdfError(f"{path}: {size} bytes of JSON, at most {MAX_ARCHIVE_BYTES}")


# ---------------------------------------------------------------- the venue as a dataset


@dataclass
class _Level:
    feature: Feature
    name: str
    short: str
    ordinal: float
    outline: BaseGeometry | None
    index: int = 0
    drawn: DrawnLevel | None = None


@dataclass
class _Unit:
    feature: Feature
    level: str
    shape: BaseGeometry
    category: str
    name: str
    point: tuple[float, float]
    listed: bool


class _Venue:
    """What the mapping works on: the archive's features in the local plane."""

    def __init__(self, archive: Archive, options: ImdfOptions) -> None:
        self.archive = archive
        self.report = archive.report
        manifest_language = archive.manifest.get("language")
        self.languages = (
            *options.languages,
            *([manifest_language] if isinstance(manifest_language, str) else []),
            "en",
        )
        venues = archive.of("venue")
        if len(venues) > 1:
            self.report.add("several venues, the first imported", ", ".join(v.id for v in venues))
        self.venue = venues[0] if venues else None
        if self.venue is None and options.asset_id is None:
            raise ImdfError("the archive has no venue: give --asset-id")
        self.asset_id = options.asset_id or (self.venue.id if self.venue else "")
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

    def text(self, value: Any) -> str | None:
        return label(value, self.languages, self.report)

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

    def _levels(self) -> dict[str, _Level]:
        found = []
        for feature in self.archive.of("level"):
            ordinal = feature.properties.get("ordinal")
            if not isinstance(ordinal, int | float) or isinstance(ordinal, bool):
                self.report.add("level without a numeric ordinal, taken as 0", feature.id)
                ordinal = 0
            name = self.text(feature.properties.get("name")) or f"Level {ordinal:g}"
            short = self.text(feature.properties.get("short_name")) or name
            outline = self.shape(feature, (Polygon, shapely.MultiPolygon))
            found.append(_Level(feature, name, short, float(ordinal), outline))
        found.sort(key=lambda level: (level.ordinal, level.feature.id))
        for index, level in enumerate(found):
            level.index = index
        return {level.feature.id: level for level in found}

    def _units(self, options: ImdfOptions) -> dict[str, _Unit]:
        units = {}
        for feature in self.archive.of("unit"):
            level = feature.properties.get("level_id")
            if level not in self.levels:
                self.report.add("unit on an unknown level, skipped", f"{feature.id}: {level}")
                continue
            shape = self.shape(feature, (Polygon, shapely.MultiPolygon))
            if shape is None or shape.is_empty:
                self.report.add("unit without a polygon, skipped", feature.id)
                continue
            category = str(feature.properties.get("category") or "unspecified").lower()
            listed = (
                category in options.units
                if options.units is not None
                else category not in DRAWN_ONLY
            )
            name = self.text(feature.properties.get("name")) or f"{category} {feature.id[:8]}"
            point = self.point_of(feature)
            if point is None or not shape.contains(Point(point)):
                if point is not None:
                    self.report.add("display point outside its unit, moved inside", feature.id)
                polygon = max(getattr(shape, "geoms", [shape]), key=lambda g: g.area)
                inside = polylabel(polygon, 0.05)
                point = (inside.x, inside.y)
            units[feature.id] = _Unit(feature, level, shape, category, name, point, listed)
        return units


def venue_dataset(archive: Archive, options: ImdfOptions) -> ImdfDataset:
    """The dataset and drawings of the archive's venue (pure: no I/O)."""
    venue = _Venue(archive, options)
    doors = _doors(venue)
    network = _network(venue, doors, options)
    canvas = Canvas.around(_bounds(venue))
    _draw(venue, doors, network)
    places = _places(venue)
    venue_name = venue.text(venue.venue.properties.get("name")) if venue.venue else None
    asset = {
        "id": venue.asset_id,
        "market": "imdf",
        "name": venue_name or venue.asset_id,
        **_venue_details(venue),
    }
    data: dict[str, Any] = {
        "version": 1,
        "assets": [asset],
        "floors": [
            {
                "id": level_id,
                "asset_id": venue.asset_id,
                "name": level.name,
                "label": level.name,
                "short_label": level.short,
                "sort": level.index,
            }
            for level_id, level in venue.levels.items()
        ],
        "units": [
            {"id": unit_id, "asset_id": venue.asset_id, "floor_id": unit.level, "name": unit.name}
            for unit_id, unit in venue.units.items()
            if unit.listed
        ],
        "unit_maps": [],
        "locations": [],
    }
    svgs: dict[str, str] = {}
    stack_id = venue.venue.id if venue.venue else f"{venue.asset_id}-stack"
    levels = list(venue.levels.values())
    for map_id, shown, style in [
        *((lv.feature.id, [lv], "floor_plate") for lv in levels),
        (stack_id, levels, "building"),
    ]:
        drawn = [level.drawn for level in shown if level.drawn is not None]
        name = shown[0].name if len(shown) == 1 else f"{asset['name']} (all levels)"
        svgs[map_id] = venue_svg(canvas, drawn, name)
        data["unit_maps"].append(
            {
                "id": map_id,
                "asset_id": venue.asset_id,
                "name": name,
                "style_type": style,
                "tags": ["imdf"],
                "routing_tier": "basic",
                "georeference": {"control_points": canvas.control_points(venue.plane)},
                "level_tags": [
                    {
                        "key": "floor",
                        "name": "Floor",
                        "values": [{"value": lv.feature.id, "name": lv.name} for lv in shown],
                    }
                ],
            }
        )
        on_map = {level.feature.id for level in shown}
        data["locations"] += _locations(venue, canvas, places, map_id, stack_id, on_map)
    summary = [
        f"venue {asset['name']!r}: {len(venue.levels)} levels, {len(venue.units)} units "
        f"({len(data['units'])} listed), {len(data['locations'])} locations, "
        f"{len(network.lines)} walk lines, {len(network.stops)} connector stops"
    ]
    return ImdfDataset(data, svgs, venue.report, summary)


def _venue_details(venue: _Venue) -> dict[str, Any]:
    """The asset's display name, address and position from the venue: its `alt_name`, its
    `address` feature (`address_id`) and its display point (WGS84). What the venue does
    not give stays out: null in the API, never made up."""
    if venue.venue is None:
        return {}
    properties = venue.venue.properties
    details: dict[str, Any] = {"display_name": venue.text(properties.get("alt_name"))}
    address = venue.archive.by_id("address").get(str(properties.get("address_id")))
    if address is not None:
        given = address.properties
        country = _text_of(given.get("country"))
        province = _text_of(given.get("province"))
        if province and country and province.startswith(f"{country}-"):
            province = province[len(country) + 1 :]  # ISO 3166-2 "US-CA": the state is CA
        postal = _text_of(given.get("postal_code"))
        extension = _text_of(given.get("postal_code_ext"))
        details |= {
            "address_line1": _text_of(given.get("address")),
            "address_line2": _text_of(given.get("unit")),
            "address_city": _text_of(given.get("locality")),
            "address_state": province,
            "address_postal_code": f"{postal}-{extension}" if postal and extension else postal,
            "address_country": country,
        }
    elif properties.get("address_id") is not None:
        venue.report.add("venue address not in the archive", str(properties["address_id"]))
    display = properties.get("display_point")
    coordinates = display.get("coordinates") if isinstance(display, dict) else None
    if (
        isinstance(coordinates, list)
        and len(coordinates) >= 2
        and all(isinstance(c, int | float) and math.isfinite(c) for c in coordinates[:2])
        and -180 <= coordinates[0] <= 180
        and -90 <= coordinates[1] <= 90
    ):
        details |= {"longitude": float(coordinates[0]), "latitude": float(coordinates[1])}
    return {name: value for name, value in details.items() if value is not None}


def _text_of(value: Any) -> str | None:
    """A non-empty string property, else None."""
    return value.strip() or None if isinstance(value, str) else None


def _bounds(venue: _Venue) -> tuple[float, float, float, float]:
    shapes = [unit.shape for unit in venue.units.values()]
    shapes += [level.outline for level in venue.levels.values() if level.outline is not None]
    bounds = shapely.total_bounds(shapes)
    return (float(bounds[0]), float(bounds[1]), float(bounds[2]), float(bounds[3]))


def _spaces(venue: _Venue) -> list[Space]:
    spaces = []
    for unit_id, unit in venue.units.items():
        restriction = str(unit.feature.properties.get("restriction") or "").lower()
        walkable = unit.category not in NOT_WALKABLE and restriction not in RESTRICTED
        spaces.append(
            Space(
                unit_id,
                unit.level,
                unit.shape,
                walkable,
                unit.category not in NO_WHEELCHAIR,
                CONNECTOR_KIND.get(unit.category),
                unit.point,
            )
        )
    return spaces


def _doors(venue: _Venue) -> list[Door]:
    """Every opening that can be read, with whether people and wheelchairs may pass."""
    doors = []
    for feature in venue.archive.of("opening"):
        level = feature.properties.get("level_id")
        if level not in venue.levels:
            venue.report.add("opening on an unknown level, skipped", f"{feature.id}: {level}")
            continue
        line = venue.shape(feature, (LineString, MultiLineString))
        if line is None:
            continue
        if isinstance(line, MultiLineString):
            venue.report.add("opening of several lines, the longest taken", feature.id)
            line = max(line.geoms, key=lambda g: g.length)
        properties = feature.properties
        access = properties.get("access_control") or []
        category = str(properties.get("category") or "").lower()
        restriction = str(properties.get("restriction") or "").lower()
        door = properties.get("door") if isinstance(properties.get("door"), dict) else {}
        walkable = not access and category not in CLOSED_OPENINGS and restriction not in RESTRICTED
        wheelchair = str(door.get("type") or "").lower() not in NO_WHEELCHAIR_DOORS
        doors.append(Door(feature.id, level, line, walkable, wheelchair))
    return doors


def _network(venue: _Venue, doors: list[Door], options: ImdfOptions) -> WalkNetwork:
    network = walk_network(
        _spaces(venue),
        doors,
        _traversals(venue),
        list(venue.levels),
        snap_tolerance=options.snap_tolerance,
    )
    for door_id, unit_id, moved in network.snaps:
        venue.report.add("opening snapped onto its unit", f"{door_id} to {unit_id}: {moved:.2f} m")
    for unit_id in network.unreachable:
        venue.report.add("unit no opening reaches (unreachable)", unit_id)
    for kind, message in network.problems:
        venue.report.add(kind, message)
    return network


def _traversals(venue: _Venue) -> list[Traversal]:
    found = []
    for feature in venue.archive.of("relationship"):
        properties = feature.properties
        category = str(properties.get("category") or "").lower()
        ends = [
            properties.get("origin"),
            *(properties.get("intermediary") or []),
            properties.get("destination"),
        ]
        unit_ids = [
            end.get("id")
            for end in ends
            if isinstance(end, dict)
            and end.get("feature_type", "unit") == "unit"
            and end.get("id") in venue.units
        ]
        kind = RELATIONSHIP_KIND.get(category)
        if kind is None and category.startswith("traversal") and unit_ids:
            kind = CONNECTOR_KIND.get(venue.units[unit_ids[0]].category)
        levels = {venue.units[u].level for u in unit_ids}
        if kind is None or len(levels) < 2:
            if category in RELATIONSHIP_KIND or category.startswith("traversal"):
                venue.report.add("relationship joining no two levels' units, skipped", feature.id)
            continue
        found.append(Traversal(feature.id, kind, tuple(unit_ids)))
    return found


def _draw(venue: _Venue, doors: list[Door], network: WalkNetwork) -> None:
    for level_id, level in venue.levels.items():
        level.drawn = DrawnLevel(level_id, level.name, level.index, level.outline)
    for unit_id, unit in venue.units.items():
        drawn = venue.levels[unit.level].drawn
        assert drawn is not None
        if unit.listed:
            drawn.units.append((unit_id, unit.shape))
            drawn.labels.append((unit.name, unit.point))
        else:
            drawn.spaces.append((unit.category, unit.shape))
    for door in doors:
        drawn = venue.levels[door.level].drawn
        assert drawn is not None
        drawn.openings.append(door.line)
    for line in network.lines:
        drawn = venue.levels[line.level].drawn
        assert drawn is not None
        drawn.paths.append((line.points, line.wheelchair))
    for stop in network.stops:
        drawn = venue.levels[stop.level].drawn
        assert drawn is not None
        drawn.stops.append((stop.connector_id, stop.kind, stop.point))


@dataclass(frozen=True)
class _Place:
    """A location to give every map of its level: a listed unit at its point, an
    amenity, an occupant at its anchor, or an anchor no occupant names."""

    id: str  # the feature's (for a unit: the unit's)
    name: str
    level: str
    point: tuple[float, float]
    tags: tuple[tuple[str, str], ...]
    unit: bool = False


def _places(venue: _Venue) -> list[_Place]:
    """Every location of the venue, read once for all its maps."""
    found = [
        _Place(
            unit_id,
            unit.name,
            unit.level,
            unit.point,
            (("svc:type", "unit"), ("svc:id", unit_id), ("imdf:category", unit.category)),
            unit=True,
        )
        for unit_id, unit in venue.units.items()
        if unit.listed
    ]
    for feature in venue.archive.of("amenity"):
        where = _amenity_place(venue, feature)
        if where is not None:
            category = str(feature.properties.get("category") or "unspecified")
            name = venue.text(feature.properties.get("name")) or category
            found.append(
                _Place(
                    feature.id,
                    name,
                    *where,
                    (
                        ("svc:amenity", "yes"),
                        ("imdf:feature", "amenity"),
                        ("imdf:category", category),
                    ),
                )
            )
    anchors = {
        anchor_id: _anchor_place(venue, anchor)
        for anchor_id, anchor in venue.archive.by_id("anchor").items()
    }
    used: set[str] = set()
    for feature in venue.archive.of("occupant"):
        anchor_id = str(feature.properties.get("anchor_id"))
        where = anchors.get(anchor_id)
        if where is None:
            venue.report.add("occupant without a usable anchor, skipped", feature.id)
            continue
        used.add(anchor_id)
        category = str(feature.properties.get("category") or "unspecified")
        name = venue.text(feature.properties.get("name")) or category
        tags = (("imdf:feature", "occupant"), ("imdf:category", category))
        found.append(_Place(feature.id, name, *where, tags))
    anchor_units = {
        a.id: venue.units.get(str(a.properties.get("unit_id"))) for a in venue.archive.of("anchor")
    }
    for anchor_id, where in anchors.items():
        if anchor_id not in used and where is not None:
            unit = anchor_units[anchor_id]
            found.append(
                _Place(
                    anchor_id,
                    unit.name if unit else "Anchor",
                    *where,
                    (("imdf:feature", "anchor"),),
                )
            )
    return found


def _locations(
    venue: _Venue,
    canvas: Canvas,
    places: list[_Place],
    map_id: str,
    stack_id: str,
    levels: set[str],
) -> list[dict[str, Any]]:
    """The places on this map's levels as location records: a unit's id is
    `<map id>:<unit id>`; others keep their id on a level's map, `<id>@<map id>` on the
    stack."""
    suffix = f"@{map_id}" if map_id == stack_id else ""
    found = []
    for place in places:
        if place.level not in levels:
            continue
        x, y = canvas.xy(*place.point)
        found.append(
            {
                "id": f"{map_id}:{place.id}" if place.unit else place.id + suffix,
                "asset_id": venue.asset_id,
                "unit_map_id": map_id,
                "name": place.name,
                "x": round(x, 3),
                "y": round(y, 3),
                "floors": [{"id": place.level}],
                "tags": [{"key": k, "value": v} for k, v in place.tags],
            }
        )
    return found


def _amenity_place(venue: _Venue, feature: Feature) -> tuple[str, tuple[float, float]] | None:
    point = venue.shape(feature, (Point,))
    unit_ids = feature.properties.get("unit_ids") or []
    levels = [venue.units[u].level for u in unit_ids if u in venue.units]
    level = levels[0] if levels else feature.properties.get("level_id")
    if point is None or level not in venue.levels:
        venue.report.add("amenity without a point or a level, skipped", feature.id)
        return None
    if len(set(levels)) > 1:
        venue.report.add("amenity in units of several levels, placed on the first", feature.id)
    return level, (point.x, point.y)


def _anchor_place(venue: _Venue, anchor: Feature) -> tuple[str, tuple[float, float]] | None:
    point = venue.shape(anchor, (Point,))
    unit = venue.units.get(str(anchor.properties.get("unit_id")))
    if point is None or unit is None:
        return None
    return unit.level, (point.x, point.y)


# ---------------------------------------------------------------- writing for review


def write_out(dataset: ImdfDataset, folder: Path) -> Path:
    """`--out DIR`: `dataset.json` and `maps/*.svg`, importable with `floorgate import`."""
    folder.mkdir(parents=True, exist_ok=True)
    data = dict(dataset.data)
    data["unit_maps"] = []
    for record in dataset.data["unit_maps"]:
        relative = SVG_PATH.format(name=quote(record["id"], safe=""))
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dataset.svgs[record["id"]], encoding="utf-8")
        data["unit_maps"].append({**record, "svg": relative})
    path = folder / "dataset.json"
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2))
    return path


def dataset_from_path(path: Path, options: ImdfOptions) -> ImdfDataset:
    return venue_dataset(read_archive(read_files(path)), options)


async def import_venue(
    store: Store,
    dataset: ImdfDataset,
    *,
    limits: SvgLimits,
    dry_run: bool = False,
    max_documents: int = IMPORT_TRANSACTION_DOCUMENTS,
) -> ImportReport | None:
    """Import the venue's dataset all or nothing (DatasetError lists every problem and
    nothing is written); with `dry_run`, validate it against the database only."""
    if dry_run:
        inputs = Inputs(limits, dict(dataset.svgs))
        validated = await validate_against(store, dataset.data, Path.cwd(), inputs)
        if validated.problems:
            raise DatasetError(validated.problems)
        return None
    return await import_data(
        store,
        dataset.data,
        Path.cwd(),
        limits=limits,
        svg_sources=dataset.svgs,
        max_documents=max_documents,
    )
