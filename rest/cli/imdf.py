"""`floorgate import-imdf PATH`: an IMDF venue read, generated and imported (docs/imdf.md),
with its report on the terminal and, with `--report FILE`, as JSON.

Its handler imports the IMDF reader and the importer when it runs, not at every start
of `floorgate` (issue 15, cold start)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rest.cli.common import ALLOW_SHRINK_HELP, import_refusals, one_line, settings_of, with_store
from storage.embedded.runtime import database_uri

if TYPE_CHECKING:
    from storage.imdf.dataset import ImdfDataset

PROBLEM_CHARS = 2_000  # an import's refusal line, at most (it may quote the input)


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
    from storage.datasets.fields import DatasetError, format_problems
    from storage.imdf import dataset as imdf_dataset
    from storage.imdf.ids import prefix_problem
    from storage.imdf.report import report_path_problem, unreachable_lines
    from storage.imdf.venue import IMDF_MARKET, ImdfError, ImdfOptions

    source = Path(args.path)
    report = Path(args.report) if args.report is not None else None
    if report is not None and (problem := report_path_problem(report, source)) is not None:
        print(f"Nothing was imported: {one_line(problem, PROBLEM_CHARS)}", file=sys.stderr)
        return 1
    prefix = args.id_prefix
    if prefix is not None and (problem := prefix_problem(prefix)) is not None:
        print(f"Nothing was imported: {problem}", file=sys.stderr)
        return _reported(report, source, None, "refused", problem, 1)
    settings = settings_of(args)
    units = (
        frozenset(c.strip().lower() for c in args.units.split(",") if c.strip())
        if args.units is not None
        else None
    )
    options = ImdfOptions(
        args.asset_id,
        tuple(args.language or ()),
        units,
        settings.imdf_snap_metres,
        market=IMDF_MARKET if args.market is None else args.market,
        id_prefix=prefix,
    )
    try:
        dataset = imdf_dataset.dataset_from_path(source, options)
    except Exception as error:  # ImdfError names the problem; a reader's bug is no trace either
        problem = str(error) if isinstance(error, ImdfError) else f"{type(error).__name__}: {error}"
        line = one_line(problem, PROBLEM_CHARS)
        print(f"Nothing was imported: {line}", file=sys.stderr)
        return _reported(report, source, None, "refused", line, 1)
    print(f"read as: {dataset.form}")
    for line in dataset.summary:
        print(line)
    if dataset.report.counts:
        print(f"Read with {sum(dataset.report.counts.values())} remark(s):")
        for line in dataset.report.lines():
            print(f"  {line}")
    for line in unreachable_lines(dataset.reachability, report):
        print(line)
    if args.out is not None:
        written = imdf_dataset.write_out(dataset, Path(args.out))
        print(f"Wrote {written} and its drawings (not imported)")
        return _reported(report, source, dataset, "written", f"wrote {written}", 0)
    with database_uri(settings) as uri:
        try:
            imported = with_store(
                settings,
                uri,
                lambda store: imdf_dataset.import_venue(
                    store,
                    dataset,
                    limits=settings.svg_limits,
                    dry_run=args.dry_run,
                    max_documents=settings.import_max_documents,
                    allow_shrink=args.allow_shrink,
                ),
            )
        except DatasetError as error:
            message = f"{len(error.problems)} problem(s)"
            print(f"Nothing was imported: {message}.", file=sys.stderr)
            print(format_problems(error.problems), file=sys.stderr)
            problems = [str(p) for p in error.problems]
            return _reported(report, source, dataset, "refused", message, 1, problems)
        except import_refusals() as error:  # another import holding an asset, ...
            print(f"Nothing was imported: {error}", file=sys.stderr)
            return _reported(report, source, dataset, "refused", str(error), 1)
    if isinstance(imported, imdf_dataset.DryRun):
        removal = f"it would remove {_stale(imported.removed_locations)}"
        print(f"Dry run: {args.path} would import without problems; nothing was written")
        print(f"  {removal}")
        message = f"would import without problems; {removal}"
        return _reported(report, source, dataset, "dry-run", message, 0)
    print(f"Imported {args.path}:")
    lines = [*imported.lines(), f"removed {_stale(imported.removed_locations)}"]
    for line in lines:
        print(f"  {line}")
    print(f"View it: {viewer_url(settings.public_url, dataset.stack_map)}")
    print("  (the stack map: every level of the venue on one map, routes between floors)")
    return _reported(report, source, dataset, "imported", "; ".join(lines), 0)


def _stale(count: int) -> str:
    """The summary's count of the stored locations of the venue's maps that the venue
    no longer gives, which the import removes (docs/imdf.md, "Places and locations")."""
    return f"{count:,} location{'' if count == 1 else 's'} the venue no longer has"


def viewer_url(public_url: str, map_id: str) -> str:
    """The viewer's address of a map on this server (docs/viewer.md, "The URL"): the
    public URL (`FLOORGATE_PUBLIC_URL`, else https://localhost and the port)."""
    from urllib.parse import quote

    from rest.pages.landing import VIEWER_TEMPLATE

    return public_url.rstrip("/") + VIEWER_TEMPLATE.format(map_id=quote(map_id, safe=""))


def _reported(
    report: Path | None,
    source: Path,
    dataset: ImdfDataset | None,
    status: str,
    message: str,
    code: int,
    problems: list[str] | None = None,
) -> int:
    """Write the report when one was asked for, then end with `code` (1 when the
    report could not be written: it was asked for)."""
    if report is None:
        return code
    from storage.imdf.report import report_document, write_report

    try:
        write_report(report, report_document(source, dataset, status, message, problems))
    except OSError as error:
        print(f"The report was not written: {report}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"Report: {report}")
    return code
