"""docs/limits.md's tables, written from the table of limits (`rest/limits/table.py`), so
that no default on the page is kept by hand. The page's prose stays hand-written; each
table stands between two markers, which `make generate` (.ci/generate.py) fills anew:

    <!-- generated: limits http -->
    | Limit | Default | Setting | Past it |
    ...
    <!-- end generated -->
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rest.limits.rows import Limit, Section
from rest.limits.table import LIMITS, SECTIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "limits.md"
END = "<!-- end generated -->"
MARKED = re.compile(r"<!-- generated: limits ([a-z-]+) -->\n.*?" + re.escape(END), re.DOTALL)


def begin(section: Section) -> str:
    return f"<!-- generated: limits {section.name} -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table_text(section: Section, rows: Sequence[Limit] = LIMITS) -> str:
    """One section's table in Markdown, a line per row, ending with a newline."""
    lines = ["| " + " | ".join(section.columns) + " |", "|---|---|---|---|"]
    lines += [
        f"| {_cell(row.what)} | {_cell(row.default)} | {_cell(row.setting)} "
        f"| {_cell(row.past_it)} |"
        for row in rows
        if row.section == section
    ]
    return "\n".join(lines) + "\n"


def limits_doc(
    text: str, sections: Sequence[Section] = SECTIONS, rows: Sequence[Limit] = LIMITS
) -> str:
    """`text` (docs/limits.md) with each marked table written from `rows`. Every section
    has its markers once, and markers name a section: else ValueError, so that no table
    of the page is left unwritten or written twice."""
    by_name = {section.name: section for section in sections}
    found = MARKED.findall(text)
    unknown = sorted(set(found) - set(by_name))
    missing = [name for name in by_name if name not in found]
    twice = sorted({name for name in found if found.count(name) > 1})
    if unknown or missing or twice:
        raise ValueError(
            f"docs/limits.md's markers: unknown {unknown}, missing {missing}, twice {twice}"
        )

    def written(match: re.Match[str]) -> str:
        section = by_name[match.group(1)]
        return f"{begin(section)}\n{table_text(section, rows)}{END}"

    return MARKED.sub(written, text)
