"""The table of root fields (`schema.queries.ROOT_FIELDS`) is the source of `Query`: every
row becomes its root field, and nothing a row could say is written by hand."""

from __future__ import annotations

import pytest
import strawberry
from graphql import GraphQLField, GraphQLNonNull, get_nullable_type
from strawberry.types import Info
from strawberry.types.field import StrawberryField
from strawberry.utils.str_converters import to_camel_case

from schema.build import build_schema
from schema.queries import ROOT_FIELDS, HandWritten, Query
from schema.root_fields import PAGING, Kind, RootField, query_type
from storage.settings import Settings

ROWS = [entry for entry in ROOT_FIELDS if isinstance(entry, RootField)]
BY_HAND = [entry for entry in ROOT_FIELDS if isinstance(entry, str)]
QUERY = build_schema(Settings())._schema.query_type


def definition(name: str):
    fields = Query.__strawberry_definition__.fields
    return next(field for field in fields if field.python_name == name)


def test_the_table_is_the_query_type_in_its_order():
    assert list(QUERY.fields) == [
        to_camel_case(entry if isinstance(entry, str) else entry.name) for entry in ROOT_FIELDS
    ]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_every_row_becomes_its_root_field(row: RootField):
    field = QUERY.fields[to_camel_case(row.name)]
    assert field.description == row.description
    assert definition(row.name).permission_classes == [row.permission]
    assert list(field.args) == [to_camel_case(arg.name) for arg in row.arguments]
    required = [name for name, arg in field.args.items() if isinstance(arg.type, GraphQLNonNull)]
    assert required == [to_camel_case(arg.name) for arg in row.required]
    if row.kind is Kind.ONE:
        assert not isinstance(field.type, GraphQLNonNull)  # null is no answer: 404 is
    else:
        assert isinstance(field.type, GraphQLNonNull)


def fits_a_row(field: GraphQLField) -> bool:
    """Whether a row could generate the field: required ids, then `id` or the paging
    arguments, then optional filters only."""
    names = list(field.args)
    required = [name for name, arg in field.args.items() if isinstance(arg.type, GraphQLNonNull)]
    if names[: len(required)] != required:
        return False
    if any(str(get_nullable_type(field.args[name].type)) != "ID" for name in required):
        return False
    rest = names[len(required) :]
    if required and required[-1] == "id":  # one item
        return True
    return rest[:2] == [to_camel_case(arg.name) for arg in PAGING]


def test_no_hand_written_field_is_a_row():
    """A hand-written field is one of a shape of its own, placed in the table by name;
    a list/get pair written by hand would fit a row, and is refused here."""
    written = {
        name for name, value in vars(HandWritten).items() if isinstance(value, StrawberryField)
    }
    assert sorted(BY_HAND) == sorted(written)
    assert not written & {row.name for row in ROWS}
    fitting = [name for name in BY_HAND if fits_a_row(QUERY.fields[to_camel_case(name)])]
    assert fitting == []


def test_a_hand_written_field_is_placed_by_the_table_once():
    class Extra:
        @strawberry.field
        async def extra(self, info: Info) -> int:
            return 1

    with pytest.raises(ValueError, match="each root field once"):
        query_type(tuple(ROWS), Extra)
    with pytest.raises(ValueError, match="each root field once"):
        query_type((*ROWS, "extra", "extra"), Extra)
    alone = query_type(("extra",), Extra).__strawberry_definition__.fields
    assert [field.python_name for field in alone] == ["extra"]
