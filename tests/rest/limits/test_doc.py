"""docs/limits.md's tables are written between their markers, and only there: the prose
around them is kept, and a section without its markers (or markers of no section) is an
error rather than a table left unwritten."""

from __future__ import annotations

import pytest

from rest.limits.doc import DOC, limits_doc, table_text
from rest.limits.rows import Limit, Section
from rest.limits.table import LIMITS, SECTIONS

ONE = Section("one")
TWO = Section("two", ("Cache", "Budget", "Setting", "Key"))
ROWS = (
    Limit(ONE, "A thing", "8 KiB", "`MAX_THING`", "413 `too large`"),
    Limit(TWO, "A cache", "1 MiB", "`CACHE_BYTES`", "a | digest"),
    Limit(ONE, "Another", "-", "-", "-"),
)
PAGE = """# Page

Prose before.

<!-- generated: limits one -->
| stale |
<!-- end generated -->

Prose between.

<!-- generated: limits two -->
<!-- end generated -->
"""


def test_each_marked_table_is_written_and_the_prose_kept():
    assert limits_doc(PAGE, (ONE, TWO), ROWS) == (
        "# Page\n\nProse before.\n\n<!-- generated: limits one -->\n"
        "| Limit | Default | Setting | Past it |\n|---|---|---|---|\n"
        "| A thing | 8 KiB | `MAX_THING` | 413 `too large` |\n"
        "| Another | - | - | - |\n"
        "<!-- end generated -->\n\nProse between.\n\n<!-- generated: limits two -->\n"
        "| Cache | Budget | Setting | Key |\n|---|---|---|---|\n"
        "| A cache | 1 MiB | `CACHE_BYTES` | a \\| digest |\n"
        "<!-- end generated -->\n"
    )


@pytest.mark.parametrize(
    ("page", "says"),
    [
        (PAGE.replace("limits two", "limits three"), r"unknown \['three'\], missing \['two'\]"),
        (PAGE + "<!-- generated: limits one -->\n<!-- end generated -->\n", r"twice \['one'\]"),
    ],
)
def test_markers_must_name_each_section_once(page: str, says: str):
    with pytest.raises(ValueError, match=says):
        limits_doc(page, (ONE, TWO), ROWS)


def test_the_page_has_every_section_of_the_table():
    page = DOC.read_text(encoding="utf-8")
    for section in SECTIONS:
        assert table_text(section, LIMITS) in page, section.name
