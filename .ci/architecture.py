"""The picture of docs/architecture.md, drawn from the code: floors, wings, modules, and
which wing imports which. `make generate` redraws it (.ci/generate.py), and
tests/docs/test_generated_files.py fails while it is stale.

Each floor and wing is described by its package docstring's first sentence, so the
picture stays true as long as the docstrings do.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from structure import FLOORS, ROOT, import_graph

DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- BEGIN PICTURE: drawn by .ci/architecture.py, do not edit by hand -->"
END = "<!-- END PICTURE -->"
WIDTH = 92


def first_sentence(package: Path) -> str:
    text = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    text = " ".join((text or "").split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def unit_of(module: str) -> str:
    """The floor (`rest`) or wing (`rest/v1`) a module belongs to."""
    parts = module.split(".")
    package = ROOT.joinpath(*parts[:2])
    if len(parts) > 2 or (len(parts) == 2 and package.is_dir()):
        return "/".join(parts[:2])
    return parts[0]


def floor_block(floor: str) -> list[str]:
    root = ROOT / floor
    modules = sorted(p.stem for p in root.glob("*.py") if p.stem != "__init__")
    lines = textwrap.wrap(f"{floor}/  {first_sentence(root)}", WIDTH, subsequent_indent="│   ")
    lines += textwrap.wrap(
        "modules: " + ", ".join(f"{m}.py" for m in modules),
        WIDTH,
        initial_indent="│   ",
        subsequent_indent="│   ",
    )
    wings = _wings(root)
    for index, wing in enumerate(wings):
        lines += wing_block(wing, "", index == len(wings) - 1)
    return lines


def _wings(package: Path) -> list[Path]:
    return sorted(p for p in package.iterdir() if (p / "__init__.py").exists())


def wing_block(wing: Path, indent: str, last: bool) -> list[str]:
    """A wing, its modules, then its own wings (`schema/execution/running/planned/`), one
    step further in."""
    inner = sorted(p.stem for p in wing.glob("*.py") if p.stem != "__init__")
    rail = f"{indent}{' ' if last else '│'}       "
    lines = textwrap.wrap(
        f"{indent}{'└' if last else '├'}── {wing.name}/  {first_sentence(wing)}",
        WIDTH,
        subsequent_indent=rail,
    )
    lines += textwrap.wrap(
        "modules: " + ", ".join(f"{m}.py" for m in inner),
        WIDTH,
        initial_indent=rail,
        subsequent_indent=rail,
    )
    wings = _wings(wing)
    for index, each in enumerate(wings):
        lines += wing_block(each, rail, index == len(wings) - 1)
    return lines


def edges() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for module, targets in import_graph().items():
        for target in targets:
            source, destination = unit_of(module), unit_of(target)
            if source != destination:
                found[source].add(destination)
    return found


def picture() -> str:
    lines = ["```text"]
    for floor in FLOORS:
        lines += floor_block(floor)
        lines.append("")
    lines[-1] = "```"
    lines += ["", "Who imports whom (a floor's top modules, or a wing, and what it imports):", ""]
    lines.append("```text")
    imports = edges()
    units = sorted(imports, key=lambda unit: (FLOORS.index(unit.split("/")[0]), unit))
    width = max(len(unit) for unit in units)
    for unit in units:
        targets = sorted(imports[unit], key=lambda t: (FLOORS.index(t.split("/")[0]), t))
        wrapped = textwrap.wrap(
            ", ".join(targets),
            WIDTH,
            initial_indent=f"{unit:<{width}} -> ",
            subsequent_indent=" " * (width + 4),
        )
        lines += wrapped
    lines.append("```")
    return "\n".join(lines)


def drawn(text: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return f"{text[:start]}\n{picture()}\n{text[end:]}"
