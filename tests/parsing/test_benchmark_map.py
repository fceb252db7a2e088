"""The benchmark's generated map (tests/benchmarks/svg_parse.py) is deterministic and is
the map it claims to be, so its timings measure what they say."""

from __future__ import annotations

import re

from parsing.parsed_map import document_bytes
from parsing.svg import parse_unit_map
from tests.benchmarks.svg_parse import UNITS_PER_WING, WINGS, generate_map


def test_generated_map_is_deterministic() -> None:
    assert generate_map(200_000, seed=3) == generate_map(200_000, seed=3)
    assert generate_map(200_000, seed=3) != generate_map(200_000, seed=4)


def test_generated_map_parses_into_what_it_describes() -> None:
    data = generate_map(600_000)
    assert len(data) >= 600_000
    parsed = parse_unit_map(data)
    levels = len(parsed.levels)
    assert levels >= 2
    assert len(parsed.units) == levels * WINGS * UNITS_PER_WING
    assert len({unit.id for unit in parsed.units}) == len(parsed.units)
    assert len(parsed.connectors) == levels * 4
    # one spur per unit and one corridor per wing
    assert len(parsed.walk_lines) == levels * WINGS * (UNITS_PER_WING + 1)
    curved = [unit for unit in parsed.units if len(unit.points) > 8]
    assert curved  # arcs and curves were flattened
    assert document_bytes(parsed) == document_bytes(parse_unit_map(data))


def test_distinct_paths_variant_has_no_two_unit_paths_alike() -> None:
    data = generate_map(600_000, distinct_paths=True)
    unit_paths = re.findall(rb'<path id="[^"]*" data-unit-id="[^"]*"[^>]* d="([^"]*)"', data)
    assert len(unit_paths) == len(parse_unit_map(data).units)
    assert len(set(unit_paths)) == len(unit_paths)
    shared = re.findall(
        rb'<path id="[^"]*" data-unit-id="[^"]*"[^>]* d="([^"]*)"', generate_map(1_000_000)
    )
    assert len(set(shared)) < len(shared) / 10  # the usual map repeats its unit types
