"""`floorgate import-osm FILE`: an OpenStreetMap indoor place (Simple Indoor Tagging, as
GeoJSON or OSM XML) read, turned into an IMDF venue and imported by the IMDF venue
pipeline (docs/osm.md), with the same report, options and all-or-nothing import as
`import-imdf`. Data (c) OpenStreetMap contributors, ODbL: the summary says so.

Its handler imports the readers and the importer when it runs, not at every start of
`floorgate`. What follows the reading is `import-imdf`'s (rest/cli/venue_import.py)."""

from __future__ import annotations

import argparse
from typing import Any

from rest.cli.common import ALLOW_SHRINK_HELP
from rest.cli.venue_import import run_venue_import


def add_import_osm(commands: Any) -> None:
    """The `import-osm` command and its options."""
    osm = commands.add_parser(
        "import-osm",
        help="import an OpenStreetMap indoor place (Simple Indoor Tagging, GeoJSON or .osm "
        "XML) as an asset, with drawings and walk paths generated (docs/osm.md)",
    )
    osm.add_argument("path", help="the OSM file: GeoJSON (.geojson, .json) or OSM XML (.osm)")
    osm.add_argument(
        "--asset-id", help="the asset's id (default: the --id-prefix, else the file's name)"
    )
    osm.add_argument("--market", help="the asset's market (default: osm)")
    osm.add_argument(
        "--id-prefix",
        metavar="PREFIX",
        help="readable ids: the asset PREFIX, the maps PREFIX-stack and "
        "PREFIX-level-<level> (docs/imdf.md, Import options)",
    )
    osm.add_argument(
        "--language",
        action="append",
        metavar="LANG",
        help="name:LANG to prefer over name, repeatable in order of preference",
    )
    osm.add_argument(
        "--units",
        metavar="CATEGORIES",
        help="comma-separated unit categories that become API units (default: all but "
        "walkways, stairs, elevators, columns and the like, which are only drawn)",
    )
    osm.add_argument(
        "--dry-run", action="store_true", help="validate against the database, write nothing"
    )
    osm.add_argument(
        "--accuracy",
        action="store_true",
        help="measure route accuracy for the health report: E18 against the exact "
        "shortest walk on a seeded sample of 200 pairs (seconds on big open halls: "
        "docs/imdf.md, The health report)",
    )
    osm.add_argument("--allow-shrink", action="store_true", help=ALLOW_SHRINK_HELP)
    osm.add_argument(
        "--out", metavar="DIR", help="write dataset.json and maps/*.svg into DIR, not imported"
    )
    osm.add_argument(
        "--report", metavar="FILE", help="write the report as JSON into FILE (docs/imdf.md)"
    )
    osm.set_defaults(handler=cmd_import_osm)


def cmd_import_osm(args: argparse.Namespace) -> int:
    from parsing.osm.model import OsmError
    from storage.osm.dataset import OSM_MARKET, osm_dataset

    return run_venue_import(args, osm_dataset, OSM_MARKET, (OsmError,), "place")
