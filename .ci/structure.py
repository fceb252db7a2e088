"""The structure of the code, measured from its own files and imports (issues 31, 64).

    .venv/bin/python .ci/structure.py          # the table; exit 1 when a rule is broken

`make test` runs it before the suite. Two kinds of rows (docs/architecture.md, "Rules of
the structure"):

- Rules, which fail the build: an import cycle, an import against the floors, a module
  holding two concepts (`CONCEPT_RULES`: a test on its imports and calls), words naming a
  module or a file that is gone, a `type: ignore` or a `fmt:` marker without its reason,
  a call past the runner, a test folder that mirrors no package.
- Signals, counts that never fail: modules in a folder, lines in a module, `fmt:`
  markers, test files at the top of tests/. Each names its largest rooms, and warns past
  the mark it once had as a cap: a count says where to look, not a reason to move code.

Imports are read with `ast`, every one of them: at the top, inside functions and under
`if TYPE_CHECKING:` alike (a cycle through a function-level import is still a cycle).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ("rest", "schema", "resolvers", "storage", "routing", "parsing")  # top down
PURE = ("routing", "parsing")  # pure functions, no I/O
VIEWER_SCRIPTS = ROOT / "rest" / "pages" / "static" / "viewer"
TESTS = ROOT / "tests"
# Test folders that are not a package of the code: whole processes, the docs, benchmarks.
# venues: the buildings tests of every floor route through (tests/venues/__init__.py)
TEST_FOLDERS_OF_THEIR_OWN = {"e2e", "docs", "benchmarks", "venues", "suite"}
# The marks of the signals: past them a count warns, never fails (the caps they were).
MAX_MODULES_PER_FOLDER = 16
MAX_LINES = 600
# Modules that are one table, naturally longer than code (issue 46, point 7: raise the
# soft limit where a concept is bigger, rather than cut it): a row per setting.
LONGER_TABLES = {"storage/settings.py": 800}
MAX_FORMAT_MARKERS = 10
MAX_TOP_TEST_FILES = 10
LARGEST = 5  # the rooms a signal names
FORMAT_MARKER = re.compile(r"#\s*fmt:\s*(skip|off|on)\b")
TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore\b")
# An explained ignore: its error codes, then a comment saying why.
EXPLAINED_IGNORE = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(?:,\s*[a-z-]+)*\]\s+#\s*\S")


@dataclass
class Row:
    """One line of the table: what is measured, its value, the goal, and the offenders.
    A signal's goal is a mark: past it the row warns, and names its largest rooms."""

    name: str
    value: int
    goal: int
    offenders: list[str]
    signal: bool = False
    largest: list[str] = field(default_factory=list)

    @property
    def met(self) -> bool:
        return self.value <= self.goal

    @property
    def fails(self) -> bool:
        """A broken rule fails the build; a signal past its mark only warns."""
        return not self.met and not self.signal


def code_files() -> Iterator[Path]:
    for floor in FLOORS:
        yield from sorted((ROOT / floor).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def crowded_folders() -> Row:
    counts = {}
    for floor in (*FLOORS, "tests"):
        for folder in [ROOT / floor, *(p for p in (ROOT / floor).rglob("*") if p.is_dir())]:
            if (folder / "__init__.py").exists():
                counts[folder] = len(list(folder.glob("*.py")))
    worst = max(counts.values())
    over = [
        f"{folder.relative_to(ROOT)}/ {count}"
        for folder, count in sorted(counts.items())
        if count > MAX_MODULES_PER_FOLDER
    ]
    fullest = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:LARGEST]
    largest = [f"{folder.relative_to(ROOT)}/ {count}" for folder, count in fullest]
    name = "modules directly in one folder (most)"
    return Row(name, worst, MAX_MODULES_PER_FOLDER, over, signal=True, largest=largest)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The project modules one file imports, wherever the import statement stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:  # `from a import b`: b a module, else a
                name = name.rpartition(".")[0]
            if name and name != module_name(path):
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    files = list(code_files())
    modules = {module_name(path) for path in files}
    return {module_name(path): imports_of(path, modules) for path in files}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each a cycle.
    Package `__init__` modules that only hold a docstring import nothing, so a package
    and its modules do not count as a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def cycle_row(graph: dict[str, set[str]]) -> Row:
    found = cycles(graph)
    return Row("import cycles between modules", len(found), 0, [" <-> ".join(c) for c in found])


def upward_imports(graph: dict[str, set[str]]) -> Row:
    """Imports against `rest -> schema -> resolvers -> storage -> routing -> parsing`."""
    rank = {floor: position for position, floor in enumerate(FLOORS)}
    against = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if rank[target.split(".")[0]] < rank[module.split(".")[0]]
    ]
    return Row("imports against the layering", len(against), 0, against)


def long_modules() -> Row:
    files = [*code_files(), *sorted(VIEWER_SCRIPTS.rglob("*.js"))]
    lengths = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in files}
    over = [
        f"{path.relative_to(ROOT)} {lines}"
        for path, lines in sorted(lengths.items())
        if lines > LONGER_TABLES.get(path.relative_to(ROOT).as_posix(), MAX_LINES)
    ]
    longest = sorted(lengths.items(), key=lambda item: (-item[1], item[0]))[:LARGEST]
    largest = [f"{path.relative_to(ROOT)} {lines}" for path, lines in longest]
    name = f"modules over {MAX_LINES} lines (.py and the viewer's .js)"
    return Row(name, len(over), 0, over, signal=True, largest=largest)


def format_markers() -> tuple[Row, Row]:
    """`fmt: skip/off/on` markers anywhere in the repository's Python: their count (a
    signal), and those without a reason (a rule): each needs a comment on the line before
    it (or on its own line, after the marker)."""
    count = 0
    unexplained = []
    per_file: dict[str, int] = {}
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0].startswith(".") or "egg-info" in relative.parts[0]:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            marker = FORMAT_MARKER.search(line)
            if not marker:
                continue
            count += 1
            per_file[relative.as_posix()] = per_file.get(relative.as_posix(), 0) + 1
            before = lines[number - 1].strip() if number else ""
            reason = before.startswith("#") or line[marker.end() :].strip().startswith("#")
            if marker.group(1) != "on" and not reason:
                unexplained.append(f"{relative}:{number + 1} has no reason")
    most = sorted(per_file.items(), key=lambda item: (-item[1], item[0]))[:LARGEST]
    largest = [f"{where} {markers}" for where, markers in most]
    counted = Row("`fmt: skip` / `fmt: off` markers", count, MAX_FORMAT_MARKERS, [])
    counted.signal, counted.largest = True, largest
    reasons = Row("`fmt:` markers without their reason", len(unexplained), 0, unexplained)
    return counted, reasons


def type_ignores() -> Row:
    """`# type: ignore` in the code: each names its error codes and says why on its line
    (`# type: ignore[attr-defined]  # uvicorn's transport has abort()`)."""
    count = 0
    unexplained = []
    for path in code_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if TYPE_IGNORE.search(line):
                count += 1
                if not EXPLAINED_IGNORE.search(line):
                    unexplained.append(f"{path.relative_to(ROOT)}:{number} has no code or reason")
    row = Row("`type: ignore` (each with its code and reason)", count, count, unexplained)
    if unexplained:
        row.goal = -1  # an ignore without its reason misses the goal whatever the count
    return row


# What only the runner (`schema/execution/running/runner.py`) may call (issue 46): the
# executors, the answer cache, the rate limit. A face imports none of these names (a type
# named under `if TYPE_CHECKING:` is not a call; a plan's data is not an executor) and
# calls no method of these names.
RUNNER_ONLY_NAMES = {
    "schema.execution.direct": {"run_direct"},
    "schema.execution.direct_plans": {"execute_directly"},
    "schema.execution.executor": {"CompiledExecutor", "YieldingExecutor"},
    "schema.execution.running.strategies": {"execute_document"},
    "graphql": {"execute", "execute_sync", "subscribe", "graphql", "graphql_sync"},
    "graphql.execution.execute": {"execute", "create_source_event_stream", "subscribe"},
    "storage.cache.read_cache": {"READS", "ReadLog"},
}
RUNNER_ONLY_CALLS = {"charge", "settle", "keep_answer", "spend_address_token"}
LIMITERS = ("rate_limiter", "address_limiter")  # their `take` is the runner's too
FACES = ("rest",)


def runtime_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node of a module but those under `if TYPE_CHECKING:`."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def past_the_runner(root: Path = ROOT) -> Row:
    """Calls of an executor, the answer cache or the rate limit from a face, not through
    the runner."""
    offenders = []
    for face in FACES:
        for path in sorted((root / face).rglob("*.py")):
            where = path.relative_to(root)
            for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module:
                    banned = RUNNER_ONLY_NAMES.get(node.module, set())
                    offenders += [
                        f"{where}:{node.lineno} imports {node.module}.{alias.name}"
                        for alias in node.names
                        if alias.name in banned
                    ]
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    called, on = node.func.attr, node.func.value
                    limiter = isinstance(on, ast.Attribute) and on.attr in LIMITERS
                    if called in RUNNER_ONLY_CALLS or (called == "take" and limiter):
                        offenders.append(f"{where}:{node.lineno} calls .{called}()")
    return Row("calls past the runner from rest/", len(offenders), 0, offenders)


@dataclass(frozen=True)
class ConceptRule:
    """Two concepts in one module, by a test on what the module imports and calls: a
    module of `floors` (all when empty) that imports from both `one` and `other`, or, with
    no `other`, that imports from `one` or calls what `calls` names (`open()`, a Path's
    `read_text`...)."""

    name: str
    one: frozenset[str]
    other: frozenset[str] = frozenset()
    floors: tuple[str, ...] = ()
    calls: frozenset[str] = frozenset()


DATABASE = frozenset({"pymongo", "bson", "gridfs", "motor"})
GEOMETRY = frozenset({"shapely", "pyproj"})
HTTP = frozenset({"starlette", "httpx", "uvicorn", "websockets", "h11"})
GRAPHQL = frozenset({"graphql", "strawberry"})
# What a pure floor does not do: a driver, the network, processes, files.
IO = DATABASE | HTTP | {"socket", "subprocess", "urllib", "requests", "aiofiles"}
FILE_CALLS = frozenset({"open", "read_text", "read_bytes", "write_text", "write_bytes"})
CONCEPT_RULES = (
    # Storage keeps documents, the geometry is computed from them: never both at once.
    ConceptRule("imports the database driver and geometry", DATABASE, GEOMETRY),
    # Storage reads and writes: geometry and drawings are computed below it, in parsing/
    # and routing/, and handed up as values (issue 64, point 1).
    ConceptRule("computes geometry in storage", GEOMETRY | {"svgelements"}, floors=("storage",)),
    # parsing/ and routing/ are pure functions of their inputs (the floors' contract).
    ConceptRule("does I/O in a pure floor", IO, floors=("parsing", "routing"), calls=FILE_CALLS),
    # HTTP is the face's (rest/): below it a request is arguments, an answer a value.
    ConceptRule(
        "speaks HTTP below the face", HTTP, floors=("schema", "resolvers", "storage", *PURE)
    ),
    # GraphQL is schema/'s and resolvers'; the data and the pure floors know nothing of it.
    ConceptRule("speaks GraphQL below the resolvers", GRAPHQL, floors=("storage", *PURE)),
)
# A module that breaks a rule on purpose: its path and why (none today; a row here is
# named in docs/architecture.md, "Rules of the structure", too).
TWO_CONCEPTS_ALLOWED: dict[str, str] = {}


def libraries_and_calls(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The top-level names of the libraries a module imports (absolute imports only), and
    the names of the functions and methods it calls."""
    libraries: set[str] = set()
    calls: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            libraries.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            libraries.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                calls.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                calls.add(node.func.attr)
    return libraries, calls


def two_concepts(root: Path = ROOT) -> Row:
    """Modules that hold two concepts by a rule of `CONCEPT_RULES`, each with its rule."""
    offenders = []
    for floor in FLOORS:
        for path in sorted((root / floor).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if where in TWO_CONCEPTS_ALLOWED:
                continue
            libraries, calls = libraries_and_calls(ast.parse(path.read_text(encoding="utf-8")))
            for rule in CONCEPT_RULES:
                if rule.floors and floor not in rule.floors:
                    continue
                if rule.other:
                    broken = bool(libraries & rule.one) and bool(libraries & rule.other)
                else:
                    broken = bool(libraries & rule.one) or bool(calls & rule.calls)
                if broken:
                    offenders.append(f"{where} {rule.name}")
    return Row("modules holding two concepts", len(offenders), 0, offenders)


PACKAGES = (*FLOORS, "tests")
DOTTED_NAME = re.compile(r"`((?:{})(?:\.[A-Za-z_]\w*)+)".format("|".join(PACKAGES)))
FILE_PATH = re.compile(r"`((?:{})/[\w/]+\.py)\b(?![ix])".format("|".join(PACKAGES)))
HISTORY = {"docs/performance-history.md"}  # names what was, by design


def defined_names(path: Path) -> set[str]:
    """Module-level names of a module: what `module.name` may refer to."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def names_something(dotted: str, root: Path, known: dict[Path, set[str]]) -> bool:
    """Whether `dotted` is a module, or a module and a name it defines (the longest
    module prefix decides)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:end])
        module = (
            base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        )
        if not module.exists():
            continue
        if end == len(parts):
            return True
        if module not in known:
            known[module] = defined_names(module)
        return parts[end] in known[module]
    return False


def stale_references(root: Path = ROOT) -> Row:
    """Docstrings, comments and docs that name a module, a module's name or a file in
    backticks (`storage.cache.read_cache`, `rest/v1/router.py`) that does not exist: a
    rename or a move the words did not follow."""
    texts = [path for package in PACKAGES for path in sorted((root / package).rglob("*.py"))]
    texts += [*sorted((root / "docs").glob("*.md")), root / "README.md", root / "DEVELOPERS.md"]
    known: dict[Path, set[str]] = {}
    stale = []
    for path in texts:
        where = path.relative_to(root).as_posix()
        if where in HISTORY or not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        for match in DOTTED_NAME.finditer(text):
            if not names_something(match.group(1), root, known):
                stale.append(f"{where}: `{match.group(1)}`")
        for match in FILE_PATH.finditer(text):
            if not (root / match.group(1)).exists():
                stale.append(f"{where}: `{match.group(1)}`")
    return Row("stale names of modules and files in words", len(stale), 0, sorted(set(stale)))


def top_test_files() -> tuple[Row, Row]:
    """Test files at the top of tests/ (a signal) and test folders that mirror no package
    of the code (a rule: tests mirror the code, `tests/<floor>/<wing>/`)."""
    tests = ROOT / "tests"
    top = sorted(path.name for path in tests.glob("test_*.py"))
    strays = [
        f"tests/{folder.name}/ mirrors no package of the code"
        for folder in sorted(tests.iterdir())
        if folder.is_dir()
        and (folder / "__init__.py").exists()
        and folder.name not in TEST_FOLDERS_OF_THEIR_OWN
        and folder.name not in FLOORS
    ]
    counted = Row("test files directly in tests/", len(top), MAX_TOP_TEST_FILES, top)
    counted.signal, counted.largest = True, top[:LARGEST]
    mirrored = Row("test folders mirroring no package", len(strays), 0, strays)
    return counted, mirrored


def table() -> list[Row]:
    """The rules first, then the signals."""
    graph = import_graph()
    markers, unexplained_markers = format_markers()
    top_tests, stray_test_folders = top_test_files()
    return [
        cycle_row(graph),
        upward_imports(graph),
        two_concepts(ROOT),
        stale_references(ROOT),
        type_ignores(),
        unexplained_markers,
        past_the_runner(ROOT),
        stray_test_folders,
        crowded_folders(),
        long_modules(),
        markers,
        top_tests,
    ]


def main() -> int:
    """Print the table; 1 when a rule is broken (a signal past its mark only warns)."""
    rows = table()
    width = max(len(row.name) for row in rows)
    print(f"{'':{width}}  now  goal")
    for number, row in enumerate(rows):
        if row.signal and (number == 0 or not rows[number - 1].signal):
            print("signals: counts that name where to look; past the mark they warn, never fail")
        if row.signal:
            goal, verdict = f"~ {row.goal}", "ok" if row.met else "WARNING"
        else:
            goal, verdict = f"<= {row.goal}", "ok" if row.met else "MISSED"
        print(f"{row.name:{width}}  {row.value:>3}  {goal}  {verdict}")
        for offender in row.offenders if not row.met else []:
            print(f"    {offender}")
        if row.signal and row.largest:
            print(f"    largest: {', '.join(row.largest)}")
    return 1 if any(row.fails for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
