"""docs/architecture.md's picture (drawn by .ci/architecture.py, kept current by `make
generate`) names every package and module of the floors where it is, wings in wings
included (`schema/execution/running/planned/`), and nothing else."""

from __future__ import annotations

import re

from tests.docs.ci_scripts import ROOT, ci_module

FLOORS = ("rest", "schema", "resolvers", "storage", "routing", "parsing")
HEADER = re.compile(r"^(?P<rails>[│ ]*)(?:[├└]── )?(?P<name>[a-z0-9_]+)/  ")


def tree() -> dict[str, set[str]]:
    """Each package of the floors (`schema/execution/running/planned`) with its modules."""
    found: dict[str, set[str]] = {}
    for floor in FLOORS:
        for init in sorted((ROOT / floor).rglob("__init__.py")):
            package = init.parent
            name = str(package.relative_to(ROOT))
            found[name] = {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    return found


def pictured(doc: str) -> dict[str, set[str]]:
    """The packages and modules the picture's first block names, by their indentation."""
    block = doc.split("```text", 1)[1].split("```", 1)[0]
    found: dict[str, set[str]] = {}
    path: list[str] = []
    current = ""
    for line in block.splitlines():
        header = HEADER.match(line)
        if header and "modules:" not in line:
            depth = (
                0 if not line.lstrip("│ ").startswith(("├", "└")) else len(header["rails"]) // 8 + 1
            )
            path = [*path[:depth], header["name"]]
            current = "/".join(path)
            found[current] = set()
        elif current:
            found[current] |= set(re.findall(r"\b([a-z0-9_]+\.py)\b", line))
    return found


def test_the_picture_names_every_package_and_module_where_it_is():
    doc = ci_module("architecture").DOC.read_text(encoding="utf-8")
    assert pictured(doc) == tree()
    assert "schema/execution/running/planned" in pictured(doc)


def test_a_module_missing_from_the_picture_is_seen():
    doc = ci_module("architecture").DOC.read_text(encoding="utf-8")
    assert pictured(doc.replace("plan.py, routes.py", "routes.py", 1)) != tree()
