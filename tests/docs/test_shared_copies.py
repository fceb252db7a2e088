"""docs/ holds the project's copies of the texts the code cites (the specification, the
contract, the SVG conventions). Each copy's text has the SHA-256 recorded here, so a clone
alone checks them; where ../shared is beside the project (as for our CI and developers),
each copy also equals its original there and the original still has the recorded digest,
so that a changed original is noticed (copy it again, then record its new digest)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"  # optional: read only when there (tests/docs/test_checkout_only.py)
COPIES = {  # the copy -> its original under ../shared, and the original's SHA-256
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


def copied_text(copy: str) -> bytes:
    """The copy's bytes less its first line where that line says it is a copy (.md)."""
    data = (ROOT / copy).read_bytes()
    if copy.endswith(".md"):
        first, data = data.split(b"\n", 1)
        assert first.startswith(b"<!-- The project's copy of ../shared/" + COPIES[copy][0].encode())
    return data


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_the_copy_has_the_recorded_digest(copy):
    """Runs on any clone: the copy is what was copied, byte for byte."""
    assert digest(copied_text(copy)) == COPIES[copy][1]


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_the_copy_is_the_original_where_the_original_is_beside_the_project(copy):
    """With ../shared beside the project: the copy equals the original, and the original
    still has the recorded digest. Without it, a clone has no original to compare: the
    recorded digest (the test above) is the check, and this one has nothing more to do."""
    original = SHARED / COPIES[copy][0]
    if not original.exists():
        return  # a clone alone: the digest test above holds the copy to the original
    assert copied_text(copy) == original.read_bytes()
    assert digest(original.read_bytes()) == COPIES[copy][1], f"{original} changed: copy it again"
