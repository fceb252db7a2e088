"""`floorgate import-imdf PATH`: an IMDF venue read, generated and imported (docs/imdf.md),
with its report on the terminal and, with `--report FILE`, as JSON.

Its handler imports the IMDF reader and the importer when it runs, not at every start
of `floorgate` (issue 15, cold start)."""

from __future__ import annotations

import argparse
from typing import Any

from rest.cli.common import ALLOW_SHRINK_HELP
from rest.cli.venue_import import run_venue_import


def add_import_imdf(commands: Any) -> None:
    """The `import-imdf` command and its options."""
    imdf = commands.add_parser(
        "import-imdf",
        help="import an IMDF venue (a .zip or folder of GeoJSON files, or one JSON "
        "document) as an asset, with drawings and walk paths generated (docs/imdf.md)",
    )
    imdf.add_argument(
        "path",
        help="the IMDF venue: a .zip or folder of its .geojson files, or one JSON "
        "document (collections as keys, or a FeatureCollection with feature_type)",
    )
    imdf.add_argument(
        "--asset-id", help="the asset's id (default: the --id-prefix, else the venue's id)"
    )
    imdf.add_argument(
        "--market",
        help="the asset's market, the segment of the vendor paths "
        "/v1/assets/{asset}/{market}/... (default: imdf; vendor clients may expect "
        "multifamily)",
    )
    imdf.add_argument(
        "--id-prefix",
        metavar="PREFIX",
        help="readable ids instead of the archive's: the asset PREFIX, the maps "
        "PREFIX-stack and PREFIX-level-<short name or ordinal>, the same at every "
        "import of the venue (docs/imdf.md, Import options)",
    )
    imdf.add_argument(
        "--language",
        action="append",
        metavar="LANG",
        help="label language to prefer, repeatable in order of preference "
        "(default: the manifest's language, then en, then any)",
    )
    imdf.add_argument(
        "--units",
        metavar="CATEGORIES",
        help="comma-separated IMDF unit categories that become API units "
        "(default: every category but walkways, stairs, elevators, "
        "structure and the like, which are only drawn)",
    )
    imdf.add_argument(
        "--dry-run", action="store_true", help="validate against the database, write nothing"
    )
    imdf.add_argument(
        "--accuracy",
        action="store_true",
        help="measure route accuracy for the health report: E18 against the exact "
        "shortest walk on a seeded sample of 200 pairs (seconds on big open halls: "
        "docs/imdf.md, The health report)",
    )
    imdf.add_argument("--allow-shrink", action="store_true", help=ALLOW_SHRINK_HELP)
    imdf.add_argument(
        "--out",
        metavar="DIR",
        help="write dataset.json and maps/*.svg into DIR for review instead "
        "of importing (import them later with `floorgate import`)",
    )
    imdf.add_argument(
        "--report",
        metavar="FILE",
        help="write the report as JSON into FILE: the remarks and every unit that cannot "
        "be reached on foot or by wheelchair, with its reason (replaces only an earlier "
        "report)",
    )
    imdf.set_defaults(handler=cmd_import_imdf)


def cmd_import_imdf(args: argparse.Namespace) -> int:
    from parsing.imdf.venue import IMDF_MARKET
    from storage.imdf.dataset import dataset_from_path

    return run_venue_import(args, dataset_from_path, IMDF_MARKET)
