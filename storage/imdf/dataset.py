"""`floorgate import-imdf PATH`: an IMDF venue as a floorgate asset (issue 19, docs/imdf.md).

The archive (a `.zip`, or a folder of its GeoJSON files) is read leniently
(`parsing.imdf.read`, `storage/imdf/files.py`), projected to a local plane
(`parsing.imdf.projection`), given walk paths generated from its rooms and doors
(`routing/imdf/walks.py`) and locations (`parsing/imdf/places.py`), and drawn in floorgate's
SVG conventions. The result is an ordinary dataset (docs/dataset.md) plus drawings,
imported by the dataset importer with its all-or-nothing guarantee, or written to a
folder for review (`--out`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from parsing.imdf.contents import unit_contents
from parsing.imdf.drawing import valid_as_drawn, venue_svg
from parsing.imdf.ids import venue_ids
from parsing.imdf.names import dataset_name, name_units
from parsing.imdf.places import map_locations, read_places
from parsing.imdf.projection import Canvas
from parsing.imdf.read import Archive, Report
from parsing.imdf.venue import ImdfOptions, Venue
from parsing.limits import SvgLimits
from routing.imdf.health import HealthReport, build_health
from routing.imdf.reachability import Reachability, reachability
from routing.imdf.walks import build_network, draw_levels, read_doors, venue_bounds
from storage.database import Store
from storage.datasets.fields import DatasetError
from storage.datasets.structure import Inputs
from storage.datasets.validation import validate_against
from storage.imdf.files import read_venue
from storage.imdf.health import venue_health_documents
from storage.imports.importer import import_data
from storage.imports.replaced import removed_by_map
from storage.imports.shrink import refuse_shrinking
from storage.imports.writer import ImportReport
from storage.limits import IMPORT_TRANSACTION_DOCUMENTS

SVG_PATH = "maps/{name}.svg"


@dataclass
class ImdfDataset:
    data: dict[str, Any]
    svgs: dict[str, str]  # by map id
    report: Report
    summary: list[str] = field(default_factory=list)
    form: str = ""  # the input form the venue was read as (parsing.imdf.read.Archive.form)
    reachability: Reachability | None = None  # the units a mode cannot reach, and why
    counts: dict[str, Any] = field(default_factory=dict)  # the summary line's numbers
    stack_map: str = ""  # the id of the map of every level, which routes between floors
    health: HealthReport | None = None  # what only the import knows (routing/imdf/health.py)


def venue_dataset(archive: Archive, options: ImdfOptions) -> ImdfDataset:
    """The dataset and drawings of the archive's venue (pure: no I/O)."""
    venue = Venue(archive, options)
    contents = unit_contents(venue)
    naming = name_units(venue, contents)
    doors = read_doors(venue)
    network = build_network(venue, doors, options)
    reached = reachability(venue, doors, network, options.snap_tolerance)
    canvas = Canvas.around(venue_bounds(venue))
    draw_levels(venue, doors, network)
    ids = venue_ids(venue, options.id_prefix)
    for level_id, level in venue.levels.items():
        if level.drawn is not None:
            level.drawn.id = ids.floor(level_id)  # the drawing's floor tag names the floor
    drawn_levels = [level.drawn for level in venue.levels.values() if level.drawn is not None]
    valid_as_drawn(canvas, drawn_levels, venue.report)  # polygons valid as written
    places = read_places(venue, contents, naming)
    venue_names = venue.texts(venue.venue.properties.get("name")) if venue.venue else {}
    venue_name = next(iter(venue_names.values()), ids.asset)  # in the venue's language
    asset = {
        "id": ids.asset,
        "market": options.market,
        "name": dataset_name(venue_names) if venue_names else ids.asset,
        **_venue_details(venue),
    }
    data: dict[str, Any] = {
        "version": 1,
        "language": venue.language,  # of plain names, and the default of name objects
        "assets": [asset],
        "floors": [
            {
                "id": ids.floor(level_id),
                "asset_id": ids.asset,
                "name": dataset_name(level.names),
                "label": level.name,
                "short_label": level.short,
                "sort": level.index,
            }
            for level_id, level in venue.levels.items()
        ],
        "units": [
            {
                "id": unit_id,
                "asset_id": ids.asset,
                "floor_id": ids.floor(unit.level),
                "name": dataset_name(unit.names),
            }
            for unit_id, unit in venue.units.items()
            if unit.listed
        ],
        "unit_maps": [],
        "locations": [],
    }
    svgs: dict[str, str] = {}
    levels = list(venue.levels.values())
    # the connector each unit's stop is of (the first by id): its place names it
    connectors: dict[str, str] = {}
    for stop in sorted(network.stops, key=lambda stop: stop.connector_id):
        if stop.unit is not None:
            connectors.setdefault(stop.unit, stop.connector_id)
    for map_id, shown, style in [
        *((ids.floor(lv.feature.id), [lv], "floor_plate") for lv in levels),
        (ids.stack, levels, "building"),
    ]:
        drawn = [level.drawn for level in shown if level.drawn is not None]
        name = shown[0].name if len(shown) == 1 else f"{venue_name} (all levels)"
        svgs[map_id] = venue_svg(canvas, drawn, name)
        data["unit_maps"].append(
            {
                "id": map_id,
                "asset_id": ids.asset,
                # a level's map in its level's languages; the stack's words are English
                "name": dataset_name(shown[0].names) if len(shown) == 1 else name,
                "style_type": style,
                "tags": ["imdf"],
                "routing_tier": "basic",
                "georeference": {"control_points": canvas.control_points(venue.plane)},
                "level_tags": [
                    {
                        "key": "floor",
                        "name": "Floor",
                        "values": [
                            {"value": ids.floor(lv.feature.id), "name": lv.name} for lv in shown
                        ],
                    }
                ],
            }
        )
        on_map = {level.feature.id for level in shown}
        data["locations"] += map_locations(venue, canvas, places, map_id, ids, on_map, connectors)
    counts = {
        "id": ids.asset,
        "name": venue_name,
        "levels": len(venue.levels),
        "units": len(venue.units),
        "listed_units": len(data["units"]),
        "locations": len(data["locations"]),
        "walk_lines": len(network.lines),
        "connector_stops": len(network.stops),
    }
    summary = [
        f"venue {venue_name!r}: {len(venue.levels)} levels, {len(venue.units)} units "
        f"({len(data['units'])} listed), {len(data['locations'])} locations, "
        f"{len(network.lines)} walk lines, {len(network.stops)} connector stops",
    ]
    accuracy = None
    if options.accuracy:  # the exact-walk reference: loaded when asked (--accuracy)
        from routing.reference.health_accuracy import measure_accuracy

        accuracy = measure_accuracy(venue, svgs, options.id_prefix)
    health = build_health(venue, network, reached, accuracy)
    return ImdfDataset(
        data,
        svgs,
        venue.report,
        summary,
        archive.form,
        reached,
        counts,
        stack_map=ids.stack,
        health=health,
    )


@dataclass(frozen=True)
class DryRun:
    """What `--dry-run` found the import would do beyond its checks: the stored locations
    of the venue's maps that the venue no longer has, which it would remove."""

    removed_locations: int


def _venue_details(venue: Venue) -> dict[str, Any]:
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
    """The dataset of the venue at `path`, in whichever input form it comes."""
    return venue_dataset(read_venue(path), options)


async def import_venue(
    store: Store,
    dataset: ImdfDataset,
    *,
    limits: SvgLimits,
    dry_run: bool = False,
    max_documents: int = IMPORT_TRANSACTION_DOCUMENTS,
    allow_shrink: bool = False,
) -> ImportReport | DryRun:
    """Import the venue's dataset all or nothing (DatasetError lists every problem and
    nothing is written; MapsShrink names the stored maps it would take below half their
    units, unless `allow_shrink`); with `dry_run`, check the same against the database
    only, and count what it would remove.

    The venue's maps keep only the locations the venue gives them now: every location of
    a venue is generated, so a place that left it (an occupant that moved out, the
    twins of a venue imported before issue 48) is removed by the same import
    (`replace_locations`, docs/imdf.md "Places and locations")."""
    if dry_run:
        inputs = Inputs(limits, dict(dataset.svgs))
        validated = await validate_against(store, dataset.data, Path.cwd(), inputs)
        if validated.problems:
            raise DatasetError(validated.problems)
        if not allow_shrink:
            await refuse_shrinking(store, validated)
        removed = await removed_by_map(store, validated.checked.records)
        return DryRun(sum(len(ids) for ids in removed.values()))
    asset_id = dataset.data["assets"][0]["id"]
    health = None if dataset.health is None else venue_health_documents(asset_id, dataset.health)
    return await import_data(
        store,
        dataset.data,
        Path.cwd(),
        limits=limits,
        svg_sources=dataset.svgs,
        max_documents=max_documents,
        allow_shrink=allow_shrink,
        replace_locations=True,
        extra=health,  # the venue's health report, replaced with it (storage/imdf/health.py)
    )
