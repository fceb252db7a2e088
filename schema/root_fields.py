"""Root fields from a table: a row names a field, its resolver and its arguments, and
`root_field` makes the strawberry field, as `rest.v1.routes` makes the REST routes.

A row's arguments are its parent ids (required), then `id` (one item) or `page` and
`perPage` (a list), then its optional filters; its resolver in `resolvers` takes the
request context, then those arguments in that order.
"""

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

import strawberry
from strawberry.types import Info
from strawberry.types.field import StrawberryField
from strawberry.utils.str_converters import to_camel_case

from resolvers.paging import tell_list
from schema.permissions import KeyRequired, RequiresAccess


class Kind(StrEnum):
    PAGE = "page"  # paged: `page`, `perPage`; the page is told which list it is (`tell_list`)
    ALL = "all"  # a plain list: `page`, `perPage`; all items, or one slice when given
    ONE = "one"  # one item by `id`


@dataclass(frozen=True)
class Arg:
    """An argument: its Python name (camelCased in the schema) and its annotation."""

    name: str
    annotation: Any


ID = Arg("id", strawberry.ID)
PAGING = (Arg("page", int | None), Arg("per_page", int | None))


@dataclass(frozen=True)
class RootField:
    """A row of the table: one root field of `Query`."""

    name: str  # the Python name; `unit_maps` is `unitMaps`
    resolver: Callable[..., Awaitable[Any]]
    returns: Any  # the return annotation, as a hand-written resolver would declare it
    kind: Kind
    parents: tuple[Arg, ...] = ()  # required ids, before `id` or paging
    filters: tuple[Arg, ...] = ()  # optional (null by default), after them
    description: str | None = None
    permission: type[RequiresAccess] = KeyRequired  # access, checked before anything else

    @property
    def required(self) -> tuple[Arg, ...]:
        return (*self.parents, ID) if self.kind is Kind.ONE else self.parents

    @property
    def arguments(self) -> tuple[Arg, ...]:
        """Every argument, in the schema's order."""
        optional = () if self.kind is Kind.ONE else PAGING
        return (*self.required, *optional, *self.filters)


def signature(row: RootField) -> inspect.Signature:
    """The generated resolver's signature, which strawberry reads as the field's
    arguments: `info`, the required arguments, then the rest defaulting to null."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    required = len(row.required)
    parameters = [inspect.Parameter("info", keyword, annotation=Info)]
    for position, arg in enumerate(row.arguments):
        default = inspect.Parameter.empty if position < required else None
        parameters.append(
            inspect.Parameter(arg.name, keyword, default=default, annotation=arg.annotation)
        )
    return inspect.Signature(parameters, return_annotation=row.returns)


def root_field(row: RootField) -> StrawberryField:
    """The strawberry field of a row: a resolver with the row's signature that hands the
    context and the arguments to the row's function, and tells a page its list."""
    names = tuple(arg.name for arg in row.arguments)
    paging = {arg.name for arg in PAGING}
    filters = tuple((to_camel_case(name), name) for name in names if name not in paging)
    call = row.resolver
    paged = row.kind is Kind.PAGE

    async def resolve(info: Info, **given: Any) -> Any:
        found = await call(info.context, *(given[name] for name in names))
        if not paged:
            return found
        return tell_list(found, info.field_name, {key: given[name] for key, name in filters})

    resolve.__name__ = resolve.__qualname__ = row.name
    resolve.root_field = row  # type: ignore[attr-defined]  # its direct plan calls the row
    resolve.__signature__ = signature(row)  # type: ignore[attr-defined]  # strawberry reads it
    resolve.__annotations__ = {
        "info": Info,
        **{arg.name: arg.annotation for arg in row.arguments},
        "return": row.returns,
    }
    # A StrawberryField: `strawberry.field` is typed as the resolver's return, for class bodies.
    return cast(
        StrawberryField,
        strawberry.field(
            resolver=resolve, description=row.description, permission_classes=[row.permission]
        ),
    )


def query_type(table: tuple[RootField | str, ...], hand_written: type) -> type:
    """`Query`: the table's fields in its order (the schema's); a row is generated, a
    name is the field of that name in `hand_written`, each of which the table places."""
    written = {
        name: value
        for name, value in vars(hand_written).items()
        if isinstance(value, StrawberryField)
    }
    names = [entry if isinstance(entry, str) else entry.name for entry in table]
    placed = sorted(entry for entry in table if isinstance(entry, str))
    if placed != sorted(written) or len(set(names)) != len(names):
        raise ValueError(f"each root field once: the table {names}, by hand {sorted(written)}")
    namespace: dict[str, Any] = {"__module__": hand_written.__module__}
    for entry in table:
        if isinstance(entry, RootField):
            namespace[entry.name] = root_field(entry)
        else:
            namespace[entry] = written[entry]
    return strawberry.type(type("Query", (), namespace))
