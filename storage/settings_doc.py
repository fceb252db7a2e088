"""docs/configuration.md and the environment part of `floorgate serve --help`, written
from the settings table (`SETTINGS`, derived from `Settings` in `storage/settings.py`), so
that neither is ever kept by hand: `make generate` writes the page (.ci/generate.py), and
tests/docs/test_generated_files.py fails while it is stale.
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from storage.settings import SETTINGS
from storage.settings_fields import WHOLE, Kind, Setting, SettingsError

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
HELP_WIDTH = 79  # fixed, so that `--help` reads the same in any terminal
DOC_WIDTH = 88


def environment_help(options: Collection[str], rows: Sequence[Setting] = SETTINGS) -> str:
    """The epilog of `floorgate serve --help` and `floorgate demo --help`: every
    variable with its default and its one line of help, and which of the command's
    `options` wins over it."""
    lines = [
        "environment (unset or empty: the default; an option given here wins;",
        "docs/configuration.md says more):",
    ]
    for row in rows:
        default = row.shown_default()
        said = [f"default {default}" if default else "unset"]
        if row.option in options:
            said.append(f"{row.option} wins")
        lines.append(f"  {row.variable} ({'; '.join(said)})")
        lines.extend(_wrap(row.help, HELP_WIDTH, indent=" " * 6))
    return "\n".join(lines)


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    """Lines of at most `width`, never breaking an option or a variable at a hyphen."""
    return textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _example_refusal() -> str:
    """A real refusal, as the service words it."""
    try:
        WHOLE.parse("FLOORGATE_PORT", "84a3")
    except SettingsError as refused:
        return f"floorgate serve: {refused}"
    raise AssertionError("'84a3' was read as a whole number")


def configuration_doc(rows: Sequence[Setting] = SETTINGS) -> str:
    """The text of docs/configuration.md."""
    kinds: dict[str, Kind[Any]] = {}
    for row in rows:
        kinds.setdefault(row.kind.name, row.kind)
    options = ", ".join(f"`{row.option}`" for row in rows if row.option)
    intro = (
        "floorgate reads its settings from `FLOORGATE_*` environment variables, once, when a "
        "process starts (`Settings.from_env`); nothing else reads the environment. An unset "
        f"or empty variable takes its default. Command-line options ({options}) win over "
        "the environment. `floorgate serve --help` and `floorgate demo --help` end with this "
        "list, in short.",
        "A value that cannot be used stops every command before it starts anything, with "
        "exit status 2 and one line naming the variable:",
    )
    lines = [
        "# Configuration",
        "",
        "<!-- Written by `make generate` from the settings table",
        "(`Settings` in storage/settings.py): change the attribute, not this page. -->",
        "",
        *_wrap(intro[0], DOC_WIDTH),
        "",
        *_wrap(intro[1], DOC_WIDTH),
        "",
        f"    {_example_refusal()}",
        "",
        "## Values",
        "",
        *(f"- **{_cell(name)}**: {kind.explained}" for name, kind in kinds.items()),
        "",
        "## Settings",
        "",
        "| Variable | Default | Value | Meaning |",
        "|---|---|---|---|",
    ]
    for row in rows:
        default = row.shown_default()
        wins = f"`{row.option}` wins." if row.option else ""
        meaning = " ".join(part for part in (row.help, wins, row.detail) if part)
        lines.append(
            f"| `{row.variable}` | {f'`{_cell(default)}`' if default else 'unset'} "
            f"| {_cell(row.rule())} | {_cell(meaning)} |"
        )
    return "\n".join(lines) + "\n"
