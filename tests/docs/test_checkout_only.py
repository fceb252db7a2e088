"""No test reads outside the checkout (issue 64, point 4): a clone alone passes `make test`.
Every test module's text is scanned for a path that leaves the repository: a `..` or
`shared` path part, the project's sibling folder of shared texts or the machine's
`/work/`, or a climb
from `Path(__file__)` (`.parent`, `.parents[N]`, and names bound to such a path) above the
repository's root. The real buildings the tests read live in tests/data/, each dataset with
its licence (tests/data/README.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
# The sibling folder's name, spelled apart: this module names it only in its patterns.
NAME = "shared"
SIBLING = "../" + NAME
LEAVING_TEXT = {
    "a `..` path part": re.compile(r"""/\s*[rf]?["']\.\.(?:[/\\]|["'])"""),
    "a `shared` path part": re.compile(r"""/\s*[rf]?["']shared["'/]"""),
    "the parent directory": re.compile(r"\bos\.(?:path\.)?pardir\b"),
    "the sibling folder of shared texts": re.compile(re.escape("..") + "/+" + NAME + r"\b"),
    "an absolute path of this machine": re.compile(r"/work/"),
}
STEPS = r"(?:\.resolve\(\)|\.absolute\(\)|\.parent\b|\.parents\[\d+\])*"
CLIMB = re.compile(rf"(Path\(__file__\)|\b[A-Z_][A-Z0-9_]*\b)({STEPS})")
BOUND = re.compile(rf"^([A-Z_][A-Z0-9_]*)\s*=\s*\(?\s*(Path\(__file__\){STEPS})", re.MULTILINE)
STEP = re.compile(r"\.parent\b|\.parents\[(\d+)\]")


def climbed(steps: str) -> int:
    """How many folders up a chain of `.parent` and `.parents[N]` goes."""
    return sum(1 if m.group(1) is None else int(m.group(1)) + 1 for m in STEP.finditer(steps))


def outside(text: str, depth: int) -> list[str]:
    """The lines of a module `depth` path parts below the root (tests/x.py: 2) that reach
    outside the repository, each as "<why>: <the line>". `Path(__file__)` climbed `depth`
    folders is the root; a name bound to such a path climbs from where it stands."""
    names = {}
    for match in BOUND.finditer(text):
        names[match.group(1)] = climbed(match.group(2))
    found = []
    for line in text.splitlines():
        reasons = [why for why, pattern in LEAVING_TEXT.items() if pattern.search(line)]
        for base, steps in CLIMB.findall(line):
            start = 0 if base == "Path(__file__)" else names.get(base)
            if start is not None and start + climbed(steps) > depth:
                reasons.append("a climb above the root")
        found += [f"{why}: {line.strip()}" for why in dict.fromkeys(reasons)]
    return found


def test_no_test_module_reaches_outside_the_checkout():
    """Every tests/**/*.py but this one (which holds such lines as examples, below)."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        where = path.relative_to(ROOT)
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{where}: {hit}" for hit in outside(text, len(where.parts))]
    assert found == []


# Lines that read the sibling folder before the data moved into tests/data (issue 64), and
# lines that stay inside, with the depth of the module that held them.
OLD = [
    (f'MAPS = Path(__file__).resolve().parents[3] / ".." / "{NAME}" / "data"', 4),  # osm places
    ("FOLDER = (\n    Path(__file__).resolve().parents[2].parent\n    / 'data'\n)", 3),  # venues
    ('ROOT = Path(__file__).resolve().parents[3]\nFOLDER = ROOT.parent / "x"', 4),  # search
    (f"Westport House indoor map data (c) WRLD / eeGeo, CC BY 4.0 ({SIBLING}/data/README.md).", 3),
    (f"SPEC = Path('/work/{NAME}/seed/000.txt')", 3),
    ("UP = Path(__file__).parent.parent.parent.parent / 'x'", 3),
    ("UP = os.path.join(HERE, os.pardir, 'x')", 3),
]
INSIDE = [
    ('DATA = Path(__file__).resolve().parents[1] / "data"', 3),
    ('COMMITTED = Path(__file__).parents[4] / "docs" / "openapi.json"', 5),
    ("ROOT = Path(__file__).resolve().parents[2]\nDOCS = ROOT / 'docs'", 3),
    ("HERE = Path(__file__).parent\nUP = HERE.parent.parent / 'x'", 3),
    ('f"{release}/../viewer.py"', 4),  # a URL, not a path of the checkout
    ("budget.shared = shared = registry().pace_of('k')", 4),
]


@pytest.mark.parametrize(("text", "depth"), OLD)
def test_a_line_reaching_outside_is_found(text, depth):
    assert outside(text, depth) != []


@pytest.mark.parametrize(("text", "depth"), INSIDE)
def test_a_line_staying_inside_is_not(text, depth):
    assert outside(text, depth) == []


def test_each_dataset_has_its_licence_and_a_place_in_the_readme():
    """tests/data/README.md names each dataset folder; each holds its LICENSE.md naming
    its licence and the attribution the README gives."""
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    folders = sorted(p for p in DATA.iterdir() if p.is_dir())
    assert [p.name for p in folders] == ["osm-indoor-map-gl-indoor", "wrld-westport-house"]
    licences = {
        "osm-indoor-map-gl-indoor": ("ODbL 1.0", "(c) OpenStreetMap contributors, ODbL"),
        "wrld-westport-house": ("CC BY 4.0", "Westport House indoor map data (c) WRLD / eeGeo"),
    }
    for folder in folders:
        licence, attribution = licences[folder.name]
        text = (folder / "LICENSE.md").read_text(encoding="utf-8")
        assert f"## {folder.name}/" in readme
        assert licence in text and attribution in text and attribution in readme
