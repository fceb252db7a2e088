"""docs/ holds the project's copies of the texts the code cites (the specification, the
contract, the SVG conventions). Each copy's text has the SHA-256 of its original recorded
here, so a clone alone checks that every copy is what was copied, byte for byte, with
nothing read outside the checkout (DEVELOPERS.md, "Copies of the shared texts": when an
original changes, copy it again and record its new digest)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COPIES = {  # the copy -> the name of its original, and the original's SHA-256
    "docs/specification.txt": (
        "seed/000_5827bcc1857f3655.txt",
        "6f3b6773a59e48711d2ffe0458310de48d975800546662773d4f763d4c5b2229",
    ),
    "docs/contract.md": (
        "contract.md",
        "c09206e6055af43214cd6f346ca0525ec80ea1f9c82a7e5609c9b57ef5b91916",
    ),
    "docs/unit-map-svg.md": (
        "unit-map-svg.md",
        "73f24ee250366af581ff9247b1115e1c9e990af9dbea08543e97ff28c6a15e81",
    ),
}
COPY_LINE = b"<!-- The project's copy of "


def copied_text(copy: str) -> bytes:
    """The copy's bytes less its first line where that line says it is a copy (.md)."""
    data = (ROOT / copy).read_bytes()
    if copy.endswith(".md"):
        first, data = data.split(b"\n", 1)
        assert first.startswith(COPY_LINE) and COPIES[copy][0].encode() in first, first
    return data


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_the_copy_has_the_recorded_digest(copy):
    """Runs on any clone: the copy is what was copied, byte for byte."""
    assert hashlib.sha256(copied_text(copy)).hexdigest() == COPIES[copy][1]
