"""docs/performance.md (the current figures) names benchmarks by the name
`python -m tests.benchmarks` takes: each one named there exists (in this folder or a
wing), and each one is named there. Its links into docs/performance-history.md (the
journal, which may name what is gone) lead to a heading there."""

from __future__ import annotations

import re
from pathlib import Path

from tests.benchmarks.__main__ import discover

DOCS = Path(__file__).parents[2] / "docs"
PAGE = (DOCS / "performance.md").read_text(encoding="utf-8")
HISTORY = (DOCS / "performance-history.md").read_text(encoding="utf-8")


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a page: lowercase, punctuation but `-`
    and `_` dropped, spaces made `-`, a repeated one numbered `-1`, `-2`..."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", markdown, flags=re.MULTILINE):
        anchor = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def test_every_benchmark_named_exists_and_every_one_is_named():
    named = set(re.findall(r"python -m tests\.benchmarks ([a-z0-9_]+)", PAGE))
    found = set(discover())
    assert named - found == set()
    assert found - named == set()


def test_every_link_into_the_history_leads_to_a_heading():
    linked = set(re.findall(r"\]\(performance-history\.md#([^)]+)\)", PAGE))
    assert linked
    assert linked - anchors(HISTORY) == set()
