"""What the OSM readers give: tagged features with a GeoJSON geometry in WGS84, the form
they were read as, and the remarks on what was skipped (docs/osm.md).

Data read by these modules is OpenStreetMap's: (c) OpenStreetMap contributors, ODbL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parsing.imdf.read import Report

ATTRIBUTION = "(c) OpenStreetMap contributors, ODbL"
LICENCE_TAG = "odbl"  # the tag of every map drawn of OSM data (TileJSON then shows ATTRIBUTION)


class OsmError(ValueError):
    """A file that cannot be read as OSM indoor data at all: the message names the
    problem, for a person."""


@dataclass(frozen=True)
class OsmFeature:
    """One OSM element: `way/123`, its tags (strings), its geometry (GeoJSON, lon/lat)."""

    id: str
    tags: dict[str, str]
    geometry: dict[str, Any] | None


@dataclass
class OsmData:
    features: list[OsmFeature]
    form: str  # the input form it was read as, for the report
    report: Report = field(default_factory=Report)
