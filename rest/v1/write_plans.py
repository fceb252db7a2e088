"""The text of the REST table's planned routes (`schema/execution/running/planned/routes.py`
and `shapes.py`) from the schema and the route table: `make generate` writes them
(.ci/generate.py) after a change of a route, a root field, a resolver's name or a type a
route selects, and tests/docs/test_generated_files.py fails while they are stale.

A route is planned when it is a GET of a query whose one root field has a direct plan
(`schema.execution.direct_plans`), whose every leaf has an inline check (builtin
scalars), and whose cost is a base plus a price per page item (no cost that grows with
its input's strings). Every other route runs through GraphQL.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from resolvers.limits import PER_PAGE
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import RestRoute
from schema.build import build_schema
from schema.execution.direct import Argument, DirectRoot
from schema.execution.direct_plans import direct_plan
from schema.execution.operation_cost import operation_cost
from schema.execution.plans import precompile
from schema.execution.running.planned.plan import page_size
from schema.execution.running.route import RESULT
from schema.execution.shapes import Leaf, ListOf, Member, Obj, Shape
from storage.settings import Settings

FOLDER = Path(__file__).parent
ROUTES_FILE = FOLDER / "routes.py"
SHAPES_FILE = FOLDER / "shapes.py"
HEADER = "# Written by `make generate`: do not edit.\n"
PAGE_SIZES = (None, 1, 2, 37, 10_000, 10_005, 0, -3)  # checked against the cost's formula
TEXT_LENGTHS = (1, 3_000)


class Planned:
    """What the files say of one route."""

    def __init__(
        self, route: RestRoute, root: DirectRoot, shape: Shape, cost: tuple[int, int]
    ) -> None:
        self.route, self.root, self.shape, self.cost = route, root, shape, cost


def planned(schema: Any, route: RestRoute) -> Planned | None:
    """The route's plan, or None when it runs through GraphQL."""
    if route.method != "GET" or route.operation != "query" or route.body is not None:
        return None
    plan = precompile(schema, route.parsed)
    direct = direct_plan(schema, route.definition, plan) if plan is not None else None
    if plan is None or direct is None or len(direct.roots) != 1:
        return None
    ((key, details),) = plan.root.grouped_field_set.items()
    shape = plan.completions[id(details)].shape
    cost = affine_cost(schema, route)
    if key != RESULT or not all_tested(shape) or cost is None:
        return None
    return Planned(route, direct.roots[0], shape, cost)


def all_tested(shape: Shape | None) -> bool:
    """Every leaf checked inline: a plan made ahead has no GraphQL coercion to call."""
    if isinstance(shape, Leaf):
        return shape.test is not None
    if isinstance(shape, ListOf):
        return all_tested(shape.item)
    if isinstance(shape, Obj):
        return all(m.shape is None or all_tested(m.shape) for m in shape.members)
    return False


def affine_cost(schema: Any, route: RestRoute) -> tuple[int, int] | None:
    """(base, per page item) when the route's cost is that for every page size and any
    length of its text inputs; else None."""
    texts = [param.variable for param in route.params if not param.is_int]
    paged = any(param.variable == PER_PAGE for param in route.params)

    def priced(per_page: int | None, length: int) -> int:
        variables: dict[str, Any] = {name: "x" * length for name in texts if length}
        if per_page is not None:
            variables[PER_PAGE] = per_page
        return operation_cost(schema, route.parsed, variables)

    one = priced(1 if paged else None, 1)
    if texts and priced(1 if paged else None, 0) != one:
        return None  # an input's presence prices work of its own (`search`'s `near`)
    per_item = priced(2, 1) - one if paged else 0
    base = one - per_item
    for per_page in PAGE_SIZES if paged else (None,):
        for length in TEXT_LENGTHS:
            if priced(per_page, length) != base + per_item * page_size(per_page):
                return None
    return base, per_item


# -- writing ------------------------------------------------------------------------------


class Writer:
    """Python source for shapes (each object shape once, by name) and routes."""

    def __init__(self) -> None:
        self.names: dict[Obj, str] = {}
        self.definitions: list[str] = []
        self.modules: set[str] = set()

    def shape(self, shape: Shape) -> str:
        if isinstance(shape, Leaf):
            return f"Leaf({shape.test!r}, {shape.nullable})"
        if isinstance(shape, ListOf):
            return f"ListOf({self.shape(shape.item)}, {shape.nullable})"
        return self.object(shape)

    def object(self, shape: Obj) -> str:
        name = self.names.get(shape)
        if name is not None:
            return name
        members = ", ".join(self.member(member) for member in shape.members)
        taken = set(self.names.values())
        base = "".join(f"_{c}" if c.isupper() else c for c in shape.type_name).strip("_")
        base = base.upper() + ("_OR_NULL" if shape.nullable else "")
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        self.names[shape] = name
        self.definitions.append(
            f"{name} = Obj({shape.type_name!r}, ({members},), {shape.nullable})"
        )
        return name

    def member(self, member: Member) -> str:
        shape = "None" if member.shape is None else self.shape(member.shape)
        return f"Member({member.name!r}, {member.read!r}, {shape})"

    def route(self, item: Planned) -> str:
        root = item.root
        module, _, function = f"{root.call.__module__}:{root.call.__qualname__}".partition(":")
        self.modules.add(module)
        alias = module.rsplit(".", 1)[1]
        arguments = ", ".join(argument(a) for a in root.arguments)
        return (
            f"    {item.route.operation_id!r}: PlannedRoute({root.field!r}, {alias}.{function}, "
            f"({arguments},), {root.requirement!r}, {root.nullable}, {root.filters!r}, "
            f"{self.shape(item.shape)}, {item.cost!r}),"
        )


def argument(given: Argument) -> str:
    return f"Argument({given.name!r}, {given.variable!r}, {given.value!r}, {given.required})"


def formatted(source: str) -> str:
    """The project's format (ruff), so that the files pass `make lint` as written."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def sources() -> tuple[str, str]:
    """The text of routes.py and of shapes.py."""
    schema = build_schema(Settings())._schema
    writer = Writer()
    plans = [item for item in (planned(schema, route) for route in ROUTES) if item is not None]
    lines = [writer.route(item) for item in plans]
    used = set(re.findall(r"\b[A-Z][A-Za-z0-9_]*\b", "\n".join(lines)))
    shape_names = ", ".join(sorted(used & set(writer.names.values())))
    shape_kinds = ", ".join(sorted(used & {"Leaf", "ListOf"}))
    packages: dict[str, list[str]] = {}
    for module in sorted(writer.modules):
        package, _, name = module.rpartition(".")
        packages.setdefault(package, []).append(name)
    imports = "\n".join(
        f"from {package} import {', '.join(names)}" for package, names in sorted(packages.items())
    )
    routes = (
        f'"""The REST table\'s planned routes by operation id (`plan.PlannedRoute`)."""\n\n'
        f"{HEADER}\nfrom __future__ import annotations\n\n{imports}\n"
        "from schema.execution.direct import Argument\n"
        "from schema.execution.running.planned.plan import PlannedRoute\n"
        f"from schema.execution.running.planned.shapes import {shape_names}\n"
        + (f"from schema.execution.shapes import {shape_kinds}\n" if shape_kinds else "")
        + "\n"
        "PLANS: dict[str, PlannedRoute] = {\n" + "\n".join(lines) + "\n}\n"
    )
    shapes = (
        '"""What the planned routes\' answers complete to (`schema.execution.shapes`)."""\n\n'
        f"{HEADER}\nfrom __future__ import annotations\n\n"
        "from schema.execution.shapes import Leaf, ListOf, Member, Obj\n\n"
        + "\n".join(writer.definitions)
        + "\n"
    )
    return formatted(routes), formatted(shapes)
