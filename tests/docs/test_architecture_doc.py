"""The structure report of .ci/structure.py measures what it claims to: a cycle through an
import inside a function, an import against the floors, a module holding two concepts, and
the counts (a crowded folder, a long module), which warn and never fail (issue 64)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.docs.ci_scripts import ci_module

ROOT = Path(__file__).resolve().parents[2]


def test_the_structure_keeps_every_rule():
    result = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "structure.py")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()[1:]
    rows = [line.split("  ")[0] for line in lines if not line.startswith(" ")]
    assert rows == [
        "import cycles between modules",
        "imports against the layering",
        "modules holding two concepts",
        "stale names of modules and files in words",
        "`type: ignore` (each with its code and reason)",
        "`fmt:` markers without their reason",
        "calls past the runner from rest/",
        "test folders mirroring no package",
        "signals: counts that name where to look; past the mark they warn, never fail",
        "modules directly in one folder (most)",
        "modules over 600 lines (.py and the viewer's .js)",
        "`fmt: skip` / `fmt: off` markers",
        "test files directly in tests/",
    ]
    assert "MISSED" not in result.stdout
    largest = [line.strip() for line in lines if line.startswith("    largest: ")]
    assert len(largest) == 2  # the fullest folders, the longest modules
    assert all(len(line.split(", ")) == 5 for line in largest), largest


def test_a_cycle_through_a_function_level_import_is_found(tmp_path, monkeypatch):
    structure = ci_module("structure")
    package = tmp_path / "rest"
    package.mkdir()
    (package / "__init__.py").write_text('"""A floor."""\n')
    (package / "a.py").write_text("from rest.b import x\n")
    (package / "b.py").write_text("def x():\n    from rest import a\n    return a\n")
    (package / "c.py").write_text("import rest.a\n")
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    monkeypatch.setattr(structure, "FLOORS", ("rest",))
    graph = structure.import_graph()
    assert graph == {
        "rest": set(),
        "rest.a": {"rest.b"},
        "rest.b": {"rest.a"},
        "rest.c": {"rest.a"},
    }
    assert structure.cycles(graph) == [["rest.a", "rest.b"]]
    row = structure.cycle_row(graph)
    assert (row.value, row.met, row.offenders) == (1, False, ["rest.a <-> rest.b"])


def test_imports_against_the_floors_and_long_modules_are_found(tmp_path, monkeypatch):
    structure = ci_module("structure")
    for floor in ("rest", "parsing"):
        (tmp_path / floor).mkdir()
        (tmp_path / floor / "__init__.py").write_text("")
    (tmp_path / "parsing" / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rest import high\n"
    )
    (tmp_path / "rest" / "high.py").write_text("x = 1\n" * 601)
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    monkeypatch.setattr(structure, "FLOORS", ("rest", "parsing"))
    monkeypatch.setattr(structure, "VIEWER_SCRIPTS", tmp_path / "none")
    against = structure.upward_imports(structure.import_graph())
    assert (against.value, against.offenders) == (1, ["parsing.low imports rest.high"])
    assert against.fails
    long = structure.long_modules()
    assert (long.value, long.offenders) == (1, ["rest/high.py 601"])
    assert (long.met, long.fails) == (False, False)  # past its mark: a warning


def test_a_type_ignore_without_its_code_or_reason_is_found(tmp_path, monkeypatch):
    structure = ci_module("structure")
    (tmp_path / "rest").mkdir()
    (tmp_path / "rest" / "a.py").write_text(
        "x = f()  # type: ignore\n"
        "y = g()  # type: ignore[attr-defined]\n"
        "z = h()  # type: ignore[attr-defined, misc]  # uvicorn's transport has abort()\n"
    )
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    monkeypatch.setattr(structure, "FLOORS", ("rest",))
    row = structure.type_ignores()
    assert (row.value, row.met, row.offenders) == (
        3,
        False,
        ["rest/a.py:1 has no code or reason", "rest/a.py:2 has no code or reason"],
    )


def test_words_naming_a_module_or_file_that_is_gone_are_found(tmp_path):
    """A docstring or a doc naming a module, a module's name or a file that does not
    exist (a rename the words did not follow) is named; what exists is not, nor a
    Cython file beside a module, nor the history of performance."""
    structure = ci_module("structure")

    def write(path: Path, text: str) -> None:  # | for a backtick: not a name in this file
        path.write_text(text.replace("|", "`"))

    (tmp_path / "storage" / "cache").mkdir(parents=True)
    (tmp_path / "storage" / "cache" / "__init__.py").write_text("")
    write(
        tmp_path / "storage" / "cache" / "journal.py",
        '"""Kept by |storage.cache.journal.Journal|, fed by |storage.cache.watch.Watcher|."""\n'
        "import os\n"
        "class Journal: ...\n"
        "LIMIT: int = 3\n",
    )
    (tmp_path / "docs").mkdir()
    write(
        tmp_path / "docs" / "api.md",
        "See |storage/cache/journal.py|, |storage/cache/gone.py|, |storage.cache.journal.LIMIT|,\n"
        "|storage.cache.journal.os|, |storage.cache.journal.missing| and |storage/_k.pyx|.\n",
    )
    write(tmp_path / "docs" / "performance-history.md", "Once |storage.old|.\n")
    write(tmp_path / "README.md", "|storage.cache| and |storage.cache.journal|.\n")
    row = structure.stale_references(tmp_path)
    assert [offender.replace("`", "|") for offender in row.offenders] == [
        "docs/api.md: |storage.cache.journal.missing|",
        "docs/api.md: |storage/cache/gone.py|",
        "storage/cache/journal.py: |storage.cache.watch.Watcher|",
    ]
    assert not row.met


def test_a_face_calling_past_the_runner_is_found(tmp_path):
    """rest/ reaches the executors, the answer cache and the rate limit only through the
    runner (issue 46): each way around it is named; a type under TYPE_CHECKING and a
    plan's data are not calls."""
    structure = ci_module("structure")
    face = tmp_path / "rest"
    face.mkdir()
    (face / "bad.py").write_text(
        "from graphql import execute, parse\n"
        "from schema.execution.direct import Argument, run_direct\n"
        "from storage.cache.read_cache import READS, kept_key\n"
        "async def go(context, cache, services):\n"
        "    await context.charge(3)\n"
        "    await context.settle(1)\n"
        "    cache.keep_answer(None, b'', '', 0)\n"
        "    context.spend_address_token()\n"
        "    await services.rate_limiter.take('k')\n"
        "    queue.take()\n"
    )
    (face / "fine.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from schema.execution.executor import CompiledExecutor\n"
        "from schema.execution.running.runner import OperationRunner\n"
    )
    row = structure.past_the_runner(tmp_path)
    assert sorted(row.offenders) == [
        "rest/bad.py:1 imports graphql.execute",
        "rest/bad.py:2 imports schema.execution.direct.run_direct",
        "rest/bad.py:3 imports storage.cache.read_cache.READS",
        "rest/bad.py:5 calls .charge()",
        "rest/bad.py:6 calls .settle()",
        "rest/bad.py:7 calls .keep_answer()",
        "rest/bad.py:8 calls .spend_address_token()",
        "rest/bad.py:9 calls .take()",
    ]
    assert not row.met


def test_a_module_holding_two_concepts_is_found(tmp_path, monkeypatch):
    """Each rule of `CONCEPT_RULES` on a module that breaks it, beside modules holding one
    concept each (a driver alone, HTTP in the face, a pure function); a module of
    `TWO_CONCEPTS_ALLOWED` is left out."""
    structure = ci_module("structure")
    files = {
        "rest/face.py": "from starlette.responses import Response\nfrom pymongo import errors\n",
        "resolvers/web.py": "import httpx\n",
        "storage/places.py": "from bson import ObjectId\nfrom shapely.geometry import Point\n",
        "storage/store.py": "from pymongo import ASCENDING\nimport orjson\n",
        "storage/graph.py": "from graphql import parse\n",
        "storage/shapes.py": "def f():\n    import pyproj\n    return pyproj\n",
        "storage/drawn.py": "import svgelements\n",
        "routing/reader.py": "def load(path):\n    return path.read_text()\n",
        "routing/pure.py": "import math\ndef f(x):\n    return math.sqrt(x)\n",
        "parsing/socket_use.py": "def f():\n    import socket\n    return socket\n",
        "parsing/opened.py": "def f(name):\n    with open(name) as file:\n        return file\n",
        "parsing/allowed.py": "import subprocess\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(structure, "FLOORS", ("rest", "resolvers", "storage", "routing", "parsing"))
    monkeypatch.setattr(structure, "TWO_CONCEPTS_ALLOWED", {"parsing/allowed.py": "a test"})
    row = structure.two_concepts(tmp_path)
    assert row.offenders == [
        "resolvers/web.py speaks HTTP below the face",
        "storage/drawn.py computes geometry in storage",
        "storage/graph.py speaks GraphQL below the resolvers",
        "storage/places.py imports the database driver and geometry",
        "storage/places.py computes geometry in storage",
        "storage/shapes.py computes geometry in storage",
        "routing/reader.py does I/O in a pure floor",
        "parsing/opened.py does I/O in a pure floor",
        "parsing/socket_use.py does I/O in a pure floor",
    ]
    assert (row.value, row.fails) == (9, True)


def test_a_format_marker_without_its_reason_and_a_stray_test_folder_fail(tmp_path, monkeypatch):
    structure = ci_module("structure")
    (tmp_path / "rest").mkdir()
    marker = "# fmt" + ": skip"  # spelled apart: not a marker of this file
    (tmp_path / "rest" / "a.py").write_text(
        f"x = [1,2]  {marker}\n# a matrix, one row a line\ny = [1,2]  {marker}\n"
    )
    for folder in ("rest", "e2e", "helpers"):
        (tmp_path / "tests" / folder).mkdir(parents=True)
        (tmp_path / "tests" / folder / "__init__.py").write_text("")
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    monkeypatch.setattr(structure, "FLOORS", ("rest",))
    counted, unexplained = structure.format_markers()
    assert (counted.value, counted.signal, counted.fails) == (2, True, False)
    assert counted.largest == ["rest/a.py 2"]
    assert (unexplained.offenders, unexplained.fails) == (["rest/a.py:1 has no reason"], True)
    top, strays = structure.top_test_files()
    assert (top.value, top.fails) == (0, False)
    assert strays.offenders == ["tests/helpers/ mirrors no package of the code"]
    assert strays.fails


def test_counts_past_their_old_caps_only_warn_and_name_the_largest_rooms(
    tmp_path, monkeypatch, capsys
):
    """17 modules in a folder, a module of 601 lines and 11 test files at the top of tests/
    were failures once; now the report warns, names the fullest folders and the longest
    modules, and exits 0. A cycle added to the same tree fails it."""
    structure = ci_module("structure")
    rest = tmp_path / "rest"
    (rest / "wing").mkdir(parents=True)
    (rest / "__init__.py").write_text("")
    (rest / "wing" / "__init__.py").write_text("")
    for number in range(16):
        (rest / f"m{number:02}.py").write_text("x = 1\n" * number)
    (rest / "long.py").write_text("x = 1\n" * 601)
    (tmp_path / "tests").mkdir()
    for number in range(11):
        (tmp_path / "tests" / f"test_{number:02}.py").write_text("")
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    monkeypatch.setattr(structure, "FLOORS", ("rest",))
    monkeypatch.setattr(structure, "VIEWER_SCRIPTS", tmp_path / "none")
    assert structure.main() == 0
    out = capsys.readouterr().out
    assert "MISSED" not in out
    warned = [line.split("  ")[0] for line in out.splitlines() if line.endswith("WARNING")]
    assert warned == [
        "modules directly in one folder (most)",
        "modules over 600 lines (.py and the viewer's .js)",
        "test files directly in tests/",
    ]
    assert "    rest/ 18\n    largest: rest/ 18, rest/wing/ 1\n" in out
    assert "    largest: rest/long.py 601, rest/m15.py 15, rest/m14.py 14, rest/m13.py 13, " in out

    (rest / "m00.py").write_text("from rest import m01\n")
    (rest / "m01.py").write_text("from rest import m00\n")
    assert structure.main() == 1
    assert "import cycles between modules                        1  <= 0  MISSED" in (
        capsys.readouterr().out
    )
