"""`floorgate gc` and `floorgate check`: the file store's garbage and dangling references
(storage/imports/integrity.py), and the durations `--older-than` takes."""

from __future__ import annotations

import argparse
import re
import sys
from datetime import timedelta

from rest.cli.common import settings_of, with_store
from storage.embedded.runtime import database_uri

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


def cmd_gc(args: argparse.Namespace) -> int:
    from storage.imports.integrity import collect_garbage

    settings = settings_of(args)
    with database_uri(settings) as uri:
        report = with_store(
            settings,
            uri,
            lambda store: collect_garbage(store, args.older_than, dry_run=args.dry_run),
        )
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
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from storage.imports.integrity import find_dangling

    settings = settings_of(args)
    with database_uri(settings) as uri:
        report = with_store(settings, uri, find_dangling)
    for finding in report.dangling:
        print(finding)
    if report.clean:
        print("No dangling references.")
        return 0
    print(f"{len(report.dangling)} dangling reference(s).", file=sys.stderr)
    return 1
