"""`putUnitMap`: an operator stores a map with its drawing through the API.

It runs the importer on a one-map dataset, so the API and `floorgate import` share
every rule (validation first, nothing written on a problem, files, units, level
tags, GeoJSON). Access (`service.admin`) was checked by the field's permission class.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from resolvers.context import RequestContext
from resolvers.errors import invalid
from resolvers.paging import as_resource
from storage import collections as c
from storage.dataset import DatasetError, Problem, import_data

RECORD_PATH = re.compile(r"^\$\.unit_maps\[0\]\.?")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def input_field(problem: Problem) -> str:
    """`$.unit_maps[0].level_tags[1].key` -> `input.levelTags[1].key`; `svg` stays `svg`."""
    path = RECORD_PATH.sub("", problem.path)
    if path == "svg":
        return "svg"
    names = re.sub(r"[A-Za-z_]+", lambda m: _camel(m.group(0)), path)
    return f"input.{names}" if names else "input"


async def put_unit_map(context: RequestContext, record: dict[str, Any], svg: str) -> dict[str, Any]:
    data = {"unit_maps": [record]}
    try:
        await import_data(
            context.store,
            data,
            Path.cwd(),
            limits=context.settings.svg_limits,
            svg_sources={record["id"]: svg} if isinstance(record.get("id"), str) else {},
        )
    except DatasetError as error:
        fields: dict[str, list[str]] = {}
        for problem in error.problems:
            fields.setdefault(input_field(problem), []).append(problem.message)
        raise invalid(fields) from None
    stored = await context.store[c.UNIT_MAPS].find_one({"_id": record["id"]})
    assert stored is not None
    return as_resource(stored)
