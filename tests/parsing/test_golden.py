"""Golden files: the parsed document of every hand-made SVG and of the demo maps.

Each `golden/<name>.json` is the expected `document_bytes`, pretty-printed. The test
compares exactly (bytes and key order). After an intended change, regenerate with
`FLOORGATE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/parsing/test_golden.py` and
read the diff before committing it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from parsing.demo.drawings import BUILDINGS, FLOORS, floor_plan, floor_plate_svg, stack_svg
from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map

HERE = Path(__file__).parent
SVG_DIR = HERE / "svg"
GOLDEN_DIR = HERE / "golden"
ASSET = "Harbor View Residences"
UPDATE = os.environ.get("FLOORGATE_UPDATE_GOLDEN") == "1"


def _demo_sources() -> dict[str, Callable[[], str | bytes]]:
    return {
        "demo-b1-f1": lambda: floor_plate_svg(floor_plan(1, 1), ASSET),
        "demo-b2-f3": lambda: floor_plate_svg(floor_plan(2, 3), ASSET),
        "demo-stack": lambda: stack_svg(
            [floor_plan(building, floor) for building in BUILDINGS for floor in FLOORS], ASSET
        ),
    }


def _sources() -> dict[str, Callable[[], str | bytes]]:
    sources: dict[str, Callable[[], str | bytes]] = {
        path.stem: path.read_bytes for path in sorted(SVG_DIR.glob("*.svg"))
    }
    sources.update(_demo_sources())
    return sources


SOURCES = _sources()


def pretty(document_json: bytes) -> bytes:
    return orjson.dumps(orjson.loads(document_json), option=orjson.OPT_INDENT_2) + b"\n"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_golden(name: str) -> None:
    produced = document_bytes(parse_unit_map(SOURCES[name]()))
    golden_path = GOLDEN_DIR / f"{name}.json"
    if UPDATE:
        golden_path.write_bytes(pretty(produced))
    assert golden_path.exists(), f"no golden file for {name}; run with FLOORGATE_UPDATE_GOLDEN=1"
    golden = golden_path.read_bytes()
    assert pretty(produced) == golden
    # The compact served bytes are exactly the golden document, re-serialised.
    assert produced == orjson.dumps(orjson.loads(golden))


def test_every_golden_file_has_a_source() -> None:
    """A renamed or removed SVG leaves no stale golden file behind."""
    assert {path.stem for path in GOLDEN_DIR.glob("*.json")} == set(SOURCES)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_parsed_map_agrees_with_its_document(name: str) -> None:
    """UnitShape points are the document's numbers; levels are the document's Levels."""
    parsed = parse_unit_map(SOURCES[name]())
    units: dict[str, str] = {}
    levels: list[str] = []

    def walk(elements: list[dict]) -> None:
        for element in elements:
            if element["type"] == "Unit":
                units[element["uid"]] = element["shape"]["points"]
            if element["type"] == "Level":
                levels.append(element["uid"])
            walk(element.get("elements", []))

    walk(parsed.document["elements"])
    assert levels == [level.uid for level in parsed.levels]
    assert list(units) == [unit.uid for unit in parsed.units]
    for unit in parsed.units:
        text = " ".join(f"{x:.15g},{y:.15g}" for x, y in unit.points)
        assert units[unit.uid] == text
