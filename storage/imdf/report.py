"""The import report of `floorgate import-imdf --report FILE` (docs/imdf.md, "The
report"): what the terminal says, structured, and every unreachable unit with its
reason; the terminal's summary of the unreachable units.

The file is checked before the import does any work (a path that cannot be written is
one line, and nothing else happens), never replaces a file that is not such a report
(the venue itself given twice, a dataset...), and is written whole or not at all (a
temporary file beside it, then renamed).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from routing.imdf.health import health_document, summary_lines
from routing.imdf.reachability import FOOT, REASONS, WHEELCHAIR, Reachability
from storage.imdf.dataset import ImdfDataset

REPORT_KIND = "floorgate import-imdf"  # the report's own mark: only such a file is replaced
REPORT_FORMAT = 1
SHOWN_GROUPS = 8  # reason and mode groups the terminal lists; the file has them all
MAX_PROBE_BYTES = 64 * 1024 * 1024  # an existing file larger than this is no report of ours


def report_path_problem(report: Path, source: Path) -> str | None:
    """Why `report` cannot take the report, in one line, or None when it can: the input
    itself or a file inside the input folder, a folder, a missing folder, an existing
    file that is not an import-imdf report, a folder not writable."""
    target = report.resolve()
    given = source.resolve()
    if target == given or given in target.parents:
        return f"--report {report}: that is the venue being imported; give another path"
    if target.is_dir():
        return f"--report {report}: is a folder; give a file name"
    if not target.parent.is_dir():
        return f"--report {report}: its folder {target.parent} does not exist"
    if target.exists() and not _is_report(target):
        return (
            f"--report {report}: exists and is not an import-imdf report; "
            "give a new path or remove the file"
        )
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".floorgate-"):
            pass
    except OSError as error:
        return f"--report {report}: cannot be written ({error.strerror})"
    return None


def _is_report(path: Path) -> bool:
    """Whether an existing file is an earlier report of this command (replaced freely)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_PROBE_BYTES:
            return False
        document = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(document, dict) and document.get("report") == REPORT_KIND


def report_document(
    source: Path,
    dataset: ImdfDataset | None,
    status: str,
    message: str,
    problems: list[str] | None = None,
) -> dict[str, Any]:
    """The report: `status` is `imported`, `dry-run`, `written` (`--out`) or `refused`;
    a venue that could not be read has no dataset, and then only the outcome."""
    document: dict[str, Any] = {
        "report": REPORT_KIND,
        "format": REPORT_FORMAT,
        "path": str(source),
        "outcome": {"status": status, "message": message, "problems": problems or []},
    }
    if dataset is None:
        return document
    remarks = dataset.report
    ordered = sorted(remarks.counts.items(), key=lambda kv: (-kv[1], kv[0]))
    document |= {
        "form": dataset.form,
        "venue": dataset.counts,
        "remarks": [
            {"kind": kind, "count": count, "examples": remarks.examples[kind]}
            for kind, count in ordered
        ],
    }
    if dataset.health is not None:  # what `floorgate check --venue --json` gives, import part
        document["health"] = health_document(dataset.health)
    reach = dataset.reachability
    if reach is not None:
        document["reachability"] = _summary(reach)
        document["unreachable"] = [
            {
                "unit_id": u.unit_id,
                "name": u.name,
                "level": u.level,
                "level_name": u.level_name,
                "category": u.category,
                "mode": list(u.modes),
                "reason": u.reason,
                "detail": u.detail,
            }
            for u in reach.unreachable
        ]
        document["unreachable_levels"] = [
            {
                "level": level.level,
                "level_name": level.level_name,
                "ordinal": level.ordinal,
                "mode": list(level.modes),
                "reason": level.reason,
                "detail": level.detail,
            }
            for level in reach.levels
        ]
    return document


def _summary(reach: Reachability) -> dict[str, Any]:
    by_reason: dict[str, dict[str, int]] = {}
    for entry in reach.unreachable:
        counts = by_reason.setdefault(entry.reason, {FOOT: 0, WHEELCHAIR: 0})
        for mode in entry.modes:
            counts[mode] += 1
    return {
        "from": reach.roots,
        "entrances": reach.entrances,
        "foot": sum(FOOT in u.modes for u in reach.unreachable),
        "wheelchair": sum(WHEELCHAIR in u.modes for u in reach.unreachable),
        "by_reason": {r: by_reason[r] for r in REASONS if r in by_reason},
    }


def write_report(path: Path, document: dict[str, Any]) -> None:
    """The report written whole: a temporary file beside it, then renamed over it."""
    data = orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    handle, temporary = tempfile.mkstemp(dir=path.resolve().parent, prefix=".floorgate-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def unreachable_lines(reach: Reachability | None, report: Path | None) -> list[str]:
    """The terminal's summary: the levels no connector or opening reaches, one line each;
    then the units, by mode, one line per reason and modes with its count and first
    example, and where the full list is."""
    if reach is None:
        return []
    lines = level_lines(reach)
    if not reach.unreachable:
        return lines
    entries = reach.unreachable
    foot = sum(FOOT in u.modes for u in entries)
    chair = sum(WHEELCHAIR in u.modes for u in entries)
    start = (
        "from the venue's main part (the largest its entrances open onto)"
        if reach.roots == "entrances"
        else "from the venue's largest connected part (it has no entrance)"
    )
    lines.append(f"Unreachable {start}: {foot} unit(s) on foot, {chair} by wheelchair:")
    groups = Counter((u.reason, u.modes) for u in entries)
    order = sorted(groups, key=lambda g: (REASONS.index(g[0]), -len(g[1]), g[1]))
    for reason, modes in order[:SHOWN_GROUPS]:
        first = next(u for u in entries if (u.reason, u.modes) == (reason, modes))
        lines.append(
            f"  {reason} ({', '.join(modes)}): {groups[(reason, modes)]}, e.g. "
            f"{first.name!r} on {first.level_name!r}: {first.detail}"
        )
    cut = len(order) > SHOWN_GROUPS or any(count > 1 for count in groups.values())
    if cut and report is not None:
        lines.append(f"  see {report} for all {len(entries)}")
    elif cut:
        lines.append(f"  give --report FILE for all {len(entries)} with their reasons")
    return lines


def level_lines(reach: Reachability) -> list[str]:
    """The levels no connector or opening joins to the others, one line each (a venue
    has few levels): reason, modes, the level's name and ordinal, the sentence."""
    if not reach.levels:
        return []
    foot = sum(FOOT in level.modes for level in reach.levels)
    chair = sum(WHEELCHAIR in level.modes for level in reach.levels)
    lines = [f"Levels no connector or opening reaches: {foot} on foot, {chair} by wheelchair:"]
    for level in reach.levels:
        lines.append(
            f"  {level.reason} ({', '.join(level.modes)}): {level.level_name!r} "
            f"(ordinal {level.ordinal:g}): {level.detail}"
        )
    return lines


def health_lines(dataset: ImdfDataset) -> list[str]:
    """The terminal's summary of the venue's health report (docs/imdf.md, "The health
    report"): counts per kind and the worst findings the import found; tiles and places
    listed twice are found from the stored maps by `floorgate check --venue`."""
    if dataset.health is None:
        return []
    return summary_lines(dataset.health, str(dataset.counts.get("id", "ASSET")))
