"""What `import-imdf` and `import-osm` share once their file is read into a venue: the
report on the terminal, the import or dry run, `--out`, `--report` and the viewer URL
printed (docs/imdf.md, docs/osm.md).

The readers and the importer are imported when a command runs, not at every start of
`floorgate` (issue 15, cold start)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rest.cli.common import import_refusals, one_line, settings_of, with_store
from storage.embedded.runtime import database_uri

if TYPE_CHECKING:
    from parsing.imdf.venue import ImdfOptions
    from storage.imdf.dataset import ImdfDataset

PROBLEM_CHARS = 2_000  # an import's refusal line, at most (it may quote the input)


def run_venue_import(
    args: argparse.Namespace,
    read: Callable[[Path, ImdfOptions], ImdfDataset],
    default_market: str,
    errors: tuple[type[Exception], ...] = (),
    noun: str = "venue",
) -> int:
    """Read `args.path` with `read` (its `errors` and ImdfError name a problem of the
    file), then report, write out, dry-run or import it as the options say."""
    from parsing.imdf.ids import prefix_problem
    from parsing.imdf.read import ImdfError
    from parsing.imdf.venue import ImdfOptions
    from storage.datasets.fields import DatasetError, format_problems
    from storage.imdf import dataset as imdf_dataset
    from storage.imdf.report import health_lines, report_path_problem, unreachable_lines

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
        market=default_market if args.market is None else args.market,
        id_prefix=prefix,
        accuracy=args.accuracy,
    )
    try:
        dataset = read(source, options)
    except Exception as error:  # a reader's error names the problem; a bug is no trace either
        named = isinstance(error, (ImdfError, *errors))
        problem = str(error) if named else f"{type(error).__name__}: {error}"
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
    for line in health_lines(dataset):
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
    print(f"  (the stack map: every level of the {noun} on one map, routes between floors)")
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
