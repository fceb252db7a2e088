"""`floorgate gc` and `floorgate check`: the file store's garbage and dangling references,
and what staged imports left (storage/imports/integrity.py), and the durations
`--older-than` takes."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from datetime import timedelta
from typing import TYPE_CHECKING

from rest.cli.common import settings_of, with_store
from storage.embedded.runtime import database_uri

if TYPE_CHECKING:
    from storage.imports.integrity import GcReport

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> timedelta:
    """`90s`, `30m`, `1h`, `2d` (a bare number is seconds), for `--older-than`."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (try 90s, 30m, 1h, 2d)")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2) or "s"])


def age(value: timedelta) -> str:
    """A duration as `--older-than` takes it (`1h`, `90s`)."""
    seconds = value.total_seconds()
    for unit in "dhm":
        if seconds and seconds % _UNITS[unit] == 0:
            return f"{seconds / _UNITS[unit]:g}{unit}"
    return f"{seconds:g}s"


def _settled_lines(report: GcReport, verbose: bool) -> list[str]:
    """What gc did (or would do) with each switch of a staged import, and with staged
    batches of no switch; their tokens with `verbose`."""
    lines = []
    for switch in report.switches:
        of = f"the switch of asset {switch.asset_id!r}"
        token = f" (token {switch.token})" if verbose else ""
        if switch.done is None:
            lines.append(f"Left {of} to its import, which still runs{token}.")
            continue
        # "Rolled forward the switch of asset 'a' from batch 3 of 12.", "Would cancel ..."
        done, _, since = switch.done.partition(" from ")
        since = f" from {since}" if since else ""
        if report.dry_run:
            done = "Would " + done.replace("cancelled", "cancel").replace("rolled", "roll")
        else:
            done = done.capitalize()
        lines.append(f"{done} {of}{since}{token}.")
    if report.batches:
        verb = "Would remove" if report.dry_run else "Removed"
        count, imports = sum(report.batches.values()), len(report.batches)
        lines.append(f"{verb} {count} staged batch(es) of {imports} import(s) with no switch.")
        if verbose:
            for token, batches in sorted(report.batches.items()):
                lines.append(f"  {verb.lower()} {batches} batch(es) of token {token}")
    return lines


def cmd_gc(args: argparse.Namespace) -> int:
    from storage.imports.integrity import collect_garbage

    settings = settings_of(args)
    # What it does with switches is printed below; their log lines (for serving
    # processes) would say it again on stderr.
    quiet = logging.getLogger("floorgate.switches")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with database_uri(settings) as uri:
            report = with_store(
                settings,
                uri,
                lambda store: collect_garbage(store, args.older_than, dry_run=args.dry_run),
            )
    finally:
        quiet.setLevel(level)
    verb = "Would remove" if args.dry_run else "Removed"
    print(f"{verb} {len(report.files)} unnamed file(s) and {report.chunks} orphan chunk(s).")
    if args.verbose:
        for name in report.files:
            print(f"  {verb.lower()} {name}")
    if report.recent:
        print(
            f"Kept {len(report.recent)} unnamed file(s) younger than {age(args.older_than)} "
            "(an import may be writing them)."
        )
        if args.verbose:
            for name in report.recent:
                print(f"  kept {name}")
    for line in _settled_lines(report, args.verbose):
        print(line)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    if args.venue is not None:
        return check_venue(args)
    if args.json:
        print("--json goes with --venue ASSET", file=sys.stderr)
        return 2
    from storage.imports.integrity import find_dangling

    settings = settings_of(args)
    with database_uri(settings) as uri:
        report = with_store(settings, uri, find_dangling)
    for finding in report.dangling:
        print(finding)
    for leftover in report.leftovers:
        print(leftover)
    if report.clean:
        print("No dangling references.")
        return 0
    if report.dangling:
        print(f"{len(report.dangling)} dangling reference(s).", file=sys.stderr)
    if report.leftovers:
        print(
            f"{len(report.leftovers)} leftover(s) of staged imports: a switch in progress or "
            "left by a stopped import, or staged batches of no switch (floorgate gc).",
            file=sys.stderr,
        )
    return 1


def check_venue(args: argparse.Namespace) -> int:
    """`floorgate check --venue ASSET [--json]`: the venue's health report, the part its
    import stored and the part found now from its stored maps; exit status 1 when a
    finding is an error (a failing tile, levels not joined on foot) or the asset is not
    found."""
    import orjson

    from resolvers.limits import MAX_HEALTH_TILES, MAX_TILE_BYTES, MAX_TILE_FEATURES
    from routing.imdf.health import ERROR, accuracy_lines, health_document
    from routing.imdf.health_live import live_checks
    from storage.imdf.health import venue_health

    settings = settings_of(args)
    with database_uri(settings) as uri:
        report = with_store(
            settings,
            uri,
            lambda store: venue_health(
                store,
                args.venue,
                lambda index: live_checks(
                    index, MAX_TILE_FEATURES, MAX_TILE_BYTES, MAX_HEALTH_TILES
                ),
            ),
        )
    if report is None:
        print(f"No asset {args.venue!r}.", file=sys.stderr)
        return 1
    if args.json:
        document = {"asset_id": args.venue, **health_document(report)}
        print(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())
    else:
        for finding in report.findings:
            print(finding.line())
        for pair in report.level_pairs:
            foot = "joined" if pair.foot else "NOT joined"
            chair = "joined" if pair.wheelchair else "NOT joined"
            print(
                f"levels {pair.lower_name!r} / {pair.upper_name!r}: on foot {foot}, by "
                f"wheelchair {chair} ({pair.by_what()})"
            )
        for line in accuracy_lines(report.accuracy):
            print(line)
        for note in report.notes:
            print(f"note: {note}")
        counts = ", ".join(f"{kind} {count}" for kind, count in report.counts().items())
        print(
            f"{len(report.findings)} finding(s) ({counts or 'none'}); "
            f"{report.tiles_checked} tile(s) checked."
        )
    return 1 if report.worst() == ERROR else 0
