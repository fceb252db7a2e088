"""The stored documents an import writes, built from clean records (storage/datasets/
validation.py) in the shapes of storage/collections.py: here so that the writer holds only
the order and the reads of its writes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pymongo import DeleteMany

from routing.levels import level_records
from storage.datasets.fields import ASSET_DETAILS
from storage.datasets.map_drawings import Drawing, StoredDrawing, map_tags, unit_ids
from storage.datasets.sections import MAP_DEFAULTS
from storage.files import chunks, digest
from storage.limits import IN_CHUNK, MAX_ID_LENGTH


def stamps(record: dict[str, Any], previous: str | None, at: str) -> tuple[str, str]:
    """created_at: given, else the stored one, else updated_at, else now; updated_at:
    given, else now (never before created_at)."""
    updated = record.get("updated_at")
    created = record.get("created_at") or previous or updated or at
    if updated is None:
        updated = max(at, created)
    elif "created_at" not in record and created > updated:
        created = updated
    return created, updated


# ---------------------------------------------------------------- documents
# Builders of the stored shapes of storage/collections.py, from a clean record and
# its resolved created_at/updated_at (which `Writer._by_id` adds to stamped ones).

Build = Callable[[dict[str, Any], str, str], dict[str, Any]]


def named(record: dict[str, Any]) -> dict[str, Any]:
    """A record's `name`, and its `names` when it is named in several languages
    (`storage.cache.names`; `storage.datasets.fields.split_names` made them)."""
    names = record.get("names")
    return {"name": record["name"]} if names is None else {"name": record["name"], "names": names}


def asset(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    details = {name: record[name] for name in ASSET_DETAILS if record.get(name) is not None}
    return {"market": record["market"], **named(record), **details}


def floor(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    return {
        "asset_id": record["asset_id"],
        **named(record),
        "label": record.get("label", record["name"]),
        "short_label": record.get("short_label", record["name"]),
        "sort": record["sort"],
    }


def unit(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    return {"asset_id": record["asset_id"], "floor_id": record["floor_id"], **named(record)}


def background(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    return {"unit_map_id": record["unit_map_id"], **named(record)}


def asset_reference(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    return {"asset_id": record["asset_id"], "key": record["key"], "value": record["value"]}


def unit_map(
    record: dict[str, Any], drawing: Drawing | None, files: StoredDrawing | None
) -> dict[str, Any]:
    """The stored map; with a drawing, its units and files come from the drawing."""
    values = {**MAP_DEFAULTS, **record}
    georeference = record.get("georeference")
    return {
        "asset_id": values["asset_id"],
        "background_id": values["background_id"],
        **named(values),
        "style": values["style"],
        "style_type": values["style_type"],
        "tags": map_tags(values["tags"], drawing),
        "routing_tier": values["routing_tier"],
        "unit_ids": unit_ids(drawing.parsed) if drawing else list(values["unit_ids"]),
        "source_file": files.source_file if files else None,
        # `url` and `geojson_url` are these files' addresses under {cdn_url}.
        "parsed_file": files.parsed_file if files else None,
        "geojson_file": None,  # written after the locations (refresh_geojson)
        "feet_per_unit": drawing.parsed.feet_per_unit if drawing else None,
        "floor_height_ft": record.get("floor_height_ft"),
        # Levels lowest first (their floor ids place waypoints), and the walk graph.
        "levels": level_records(drawing.parsed.levels) if drawing else [],
        "graph_file": files.graph_file if files else None,
        "georeference": None
        if georeference is None
        else {"control_points": [point for _, point in georeference["control_points"]]},
    }


def group(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    return {
        "group_name": record["group_name"],
        "one_attribute_per_unit": record.get("one_attribute_per_unit", False),
        "attributes": [
            {
                "attribute_id": attribute["attribute_id"],
                "attribute_name": attribute["attribute_name"],
                "attribute_key": attribute["attribute_key"],
            }
            for _, attribute in record["attributes"]
        ],
    }


def location(record: dict[str, Any], created: str, updated: str) -> dict[str, Any]:
    """Location tags without timestamps take the location's."""
    return {
        "asset_id": record["asset_id"],
        "unit_map_id": record["unit_map_id"],
        **named(record),
        "x": record["x"],
        "y": record["y"],
        "floors": [{"id": floor["id"]} for _, floor in record["floors"]],
        "tags": [
            {
                "key": tag["key"],
                "value": tag["value"],
                "created_at": tag.get("created_at", created),
                "updated_at": tag.get("updated_at", updated),
            }
            for _, tag in record.get("tags", [])
        ],
    }


def derived_location_id(map_id: str, unit_id: str) -> str:
    """`<map id>:<unit id>`, or a hash of both when that would pass the id limit."""
    readable = f"{map_id}:{unit_id}"
    if len(readable) <= MAX_ID_LENGTH:
        return readable
    return "unit-location-" + digest(f"{map_id}\0{unit_id}".encode())


def level_tag_values(
    tag: dict[str, Any], previous: dict[str, Any] | None, created: str, updated: str
) -> list[dict[str, Any]]:
    """Values keep their stored created_at by value id; otherwise they take the tag's."""
    old = {v.get("value"): v.get("created_at") for v in (previous or {}).get("values", [])}
    return [
        {
            "name": value["name"],
            "value": value["value"],
            "created_at": value.get("created_at") or old.get(value["value"]) or created,
            "updated_at": value.get("updated_at", updated),
        }
        for _, value in tag["values"]
    ]


def deletes_by_id(ids: list[Any]) -> list[Any]:
    """Deletes of these documents by `_id` (the index every server serves `$in` from)."""
    return [DeleteMany({"_id": {"$in": chunk}}) for chunk in chunks(ids, IN_CHUNK)]
