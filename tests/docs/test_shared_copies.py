"""docs/ holds the project's copies of the texts the code cites (the specification, the
contract, the SVG conventions): each equal to its original in ../shared when that folder
is beside the project, as it is for developers and CI."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
COPIES = {
    "docs/specification.txt": "seed/000_5827bcc1857f3655.txt",
    "docs/contract.md": "contract.md",
    "docs/unit-map-svg.md": "unit-map-svg.md",
}


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_the_copy_is_the_original(copy):
    original = SHARED / COPIES[copy]
    if not original.exists():
        pytest.skip(f"{original} is not beside the project")
    text = (ROOT / copy).read_text(encoding="utf-8")
    if copy.endswith(".md"):  # the copy's first line says it is one
        first, text = text.split("\n", 1)
        assert first.startswith("<!-- The project's copy of ../shared/")
    assert text == original.read_text(encoding="utf-8")
