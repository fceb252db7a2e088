"""Unit-map SVG to the parsed document (application/vnd.map+json) and the geometry the
walk graph and unit locations need. Conventions: docs/unit-map-svg.md;
decisions where they are silent: docs/svg-parsing.md.

The XML is read safely (`parsing.safety`), then one walk over the tree in document order
(`parsing.map_reader`) builds the document and, on the side, the levels, unit outlines,
walk lines and connectors in canvas coordinates (`parsing.parsed_map`). Everything is
a pure function of the input: same input, same `document_bytes`.
"""

from __future__ import annotations

import orjson

from parsing.errors import Stop, SvgError
from parsing.gcpause import gc_paused
from parsing.limits import SvgLimits
from parsing.map_reader import MapReader
from parsing.parsed_map import ParsedMap
from parsing.safety import parse_xml


def parse_unit_map(
    data: bytes | str,
    limits: SvgLimits = SvgLimits(),  # noqa: B008
    stop: Stop | None = None,
) -> ParsedMap:
    """Parse a unit-map SVG; SvgError (with line/column where known) for anything wrong.

    `stop`, once set (by another thread), ends the parse at its next element with
    `Stopped`: a request that ran out of time does not keep a core busy.

    The SvgError is a fresh one, raised once the input is dropped: the one raised inside
    held the tree and the input through its traceback's frames, and callers keep errors
    (graphql-core's in reference cycles, freed only by a full collection): ten refused
    8 MB drawings held 1.9 GB."""
    try:
        with gc_paused():
            return _parse(data, limits, stop)
    except SvgError as error:
        failure = SvgError(error.message, error.line, error.column)
    del data
    raise failure


def parsed_document_json(data: bytes | str, limits: SvgLimits, stop: Stop | None = None) -> bytes:
    """`parse_unit_map`'s document as JSON: what a parse in a worker process sends back
    (bytes cross a pipe far cheaper than a tree of dicts and lists)."""
    return orjson.dumps(parse_unit_map(data, limits, stop).document)


def _parse(data: bytes | str, limits: SvgLimits, stop: Stop | None) -> ParsedMap:
    root, element_count = parse_xml(data, limits)
    try:
        return MapReader(root, limits, element_count, stop).read()
    except RecursionError:  # `use` inside `use` inside ...: deeper than Python's stack
        raise SvgError("the SVG nests elements too deeply (through <use> or groups)") from None
