"""GraphQL inputs as the plain records the resolvers take."""

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from strawberry.scalars import is_scalar
from strawberry.types.arguments import InputContext
from strawberry.types.base import (
    StrawberryList,
    StrawberryMaybe,
    StrawberryObjectDefinition,
    StrawberryOptional,
    StrawberryType,
    has_object_definition,
)

T = TypeVar("T", bound=type)
Convert = Callable[[Any], Any]


def as_record(value: Any) -> Any:
    """An input as a dataset record: plain dicts and lists, unset fields left out.
    A record input (`record_input`) already is one and comes back as it is."""
    if dataclasses.is_dataclass(value):
        return {
            f.name: as_record(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not None
        }
    if isinstance(value, list):
        return [as_record(item) for item in value]
    return value


def record_input(cls: T) -> T:
    """Strawberry hands resolvers this input as its record (what `as_record` makes of
    it), built straight from graphql-core's coerced value, instead of building its
    dataclasses first: strawberry's generic conversion costs about 60 µs a waypoint
    (3 ms for the 50 of a distance matrix), this about 1 µs. The schema is unchanged.

    Only for inputs of scalars, lists and other such inputs (no enums, no `Maybe`):
    graphql-core has coerced every scalar already, and strawberry passes those on as
    they are too. Anything else is refused (TypeError) on the first conversion.
    """
    definition: StrawberryObjectDefinition = cls.__strawberry_definition__  # type: ignore[attr-defined]  # set by @strawberry.input
    assert definition.is_input, f"{cls.__name__} is not an input"
    built: list[tuple[object, Convert]] = []

    def from_input(_cls: type, value: Mapping[str, Any], context: InputContext) -> Any:
        # Built on first use, when every type is resolved, for the schema's name converter.
        if not built or built[0][0] is not context.config:
            built[:] = [(context.config, _object_converter(definition, context, {}))]
        return built[0][1](value)

    definition.from_input = from_input
    return cls


def _object_converter(
    definition: StrawberryObjectDefinition,
    context: InputContext,
    made: dict[int, Convert],
) -> Convert:
    """A record from an input object: snake_case keys, null and omitted fields left out."""
    if id(definition) in made:
        return made[id(definition)]
    fields: list[tuple[str, str, Convert | None]] = []

    def convert(value: Mapping[str, Any]) -> dict[str, Any]:
        record = {}
        for graphql_name, python_name, inner in fields:
            item = value.get(graphql_name)
            if item is not None:
                record[python_name] = item if inner is None else inner(item)
        return record

    made[id(definition)] = convert  # before the fields: an input may hold itself
    names = context.config.name_converter
    for field in definition.fields:
        inner = _value_converter(field.resolve_type(type_definition=definition), context, made)
        fields.append((names.from_field(field), field.python_name, inner))
    return convert


def _value_converter(
    type_: StrawberryType | type, context: InputContext, made: dict[int, Convert]
) -> Convert | None:
    """How a non-null value of `type_` becomes its record part; None: as it is."""
    if isinstance(type_, StrawberryMaybe):  # `Some(...)` values: not plain records
        raise TypeError(f"record_input does not convert {type_!r}")
    if isinstance(type_, StrawberryOptional):
        return _value_converter(type_.of_type, context, made)
    if isinstance(type_, StrawberryList):
        inner = _value_converter(type_.of_type, context, made)
        if inner is None:
            return list  # a copy: graphql-core shares default values between requests
        return lambda items: [None if item is None else inner(item) for item in items]
    if has_object_definition(type_):
        return _object_converter(type_.__strawberry_definition__, context, made)
    if is_scalar(type_, context.scalar_registry):
        return None  # coerced by graphql-core; strawberry passes it on as it is too
    raise TypeError(f"record_input does not convert {type_!r}")  # enums, unions, ...
