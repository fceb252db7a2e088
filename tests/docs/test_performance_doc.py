"""docs/performance.md names benchmarks by the name `python -m tests.benchmarks` takes:
each one named there exists (in this folder or a wing), and each one is named there."""

from __future__ import annotations

import re
from pathlib import Path

from tests.benchmarks.__main__ import discover

PAGE = (Path(__file__).parents[2] / "docs" / "performance.md").read_text(encoding="utf-8")


def test_every_benchmark_named_exists_and_every_one_is_named():
    named = set(re.findall(r"python -m tests\.benchmarks ([a-z0-9_]+)", PAGE))
    found = set(discover())
    assert named - found == set()
    assert found - named == set()
