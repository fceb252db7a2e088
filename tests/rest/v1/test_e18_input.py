"""Record inputs (issue 15 item 3, E18 input): strawberry hands the resolvers of E18 and
E21/E22 their input as a record built from graphql-core's coerced value, exactly what
its generic conversion and `as_record` made, with the schema unchanged."""

from __future__ import annotations

import enum
from typing import Any

import orjson
import pytest
import strawberry
from graphql.utilities import coerce_input_value
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.types.scalar import DEFAULT_SCALAR_REGISTRY
from strawberry.types.arguments import InputContext, convert_arguments

from schema.build import build_schema
from schema.experimental_types import DistanceMatrixInput, UnitAttributeAssignmentInput
from schema.records import as_record, record_input
from storage.settings import Settings

RECORD_INPUTS = (DistanceMatrixInput, UnitAttributeAssignmentInput)

# The SDL of the inputs and the fields that take them, as before record inputs (and a
# waypoint's `nearest`, issue 47).
SDL = [
    "input CostingOptionsInput {\n  pedestrian: PedestrianOptionsInput = null\n}",
    '"""At most 50 source-target pairs (sources x targets)."""\n'
    "input DistanceMatrixInput {\n  sources: [WaypointInput!]!\n  targets: [WaypointInput!]!\n\n"
    '  """`pedestrian` (default)."""\n  costing: String = null\n'
    "  costingOptions: CostingOptionsInput = null\n\n"
    '  """\n  `default` (pathfinding when the map has walk paths, else euclidean), '
    '`pathfinding` or `euclidean`.\n  """\n  distanceMethod: String = null\n}',
    # with the costing options of issue 50, point 1
    (
        '"""\n'
        "Valhalla's pedestrian costing options (docs/routing.md, Costing "
        "options).\n"
        '"""\n'
        "input PedestrianOptionsInput {\n"
        '  """`foot` (default) or `wheelchair` (never uses stairs or '
        'escalators)."""\n'
        "  mode: String = null\n"
        "\n"
        '  """\n'
        "  Walking speed in km/h, from 0.5 to 25; default the server's setting "
        "for the mode. Scales the time of everything walked; stairs and "
        "elevators keep their times per floor.\n"
        '  """\n'
        "  walkingSpeed: Float = null\n"
        "\n"
        '  """\n'
        "  Seconds added for each flight of stairs taken (between two floors), "
        "from 0 to 3600 (default 0): the route avoids it unless the detour "
        "costs more. Time only; distance is unchanged.\n"
        '  """\n'
        "  stepPenalty: Float = null\n"
        "\n"
        '  """\n'
        "  Seconds added for each elevator ride, from 0 to 3600 (default 0): "
        "the route avoids it unless the detour costs more. Time only; distance "
        "is unchanged.\n"
        '  """\n'
        "  elevatorPenalty: Float = null\n"
        "\n"
        '  """\n'
        "  Seconds added for each escalator taken (between two floors), from 0 "
        "to 3600 (default 0): the route avoids it unless the detour costs "
        "more. Time only; distance is unchanged.\n"
        '  """\n'
        "  escalatorPenalty: Float = null\n"
        "\n"
        '  """\n'
        "  Seconds added for each ramp taken (between two floors), from 0 to "
        "3600 (default 0): the route avoids it unless the detour costs more. "
        "Time only; distance is unchanged.\n"
        '  """\n'
        "  rampPenalty: Float = null\n"
        "\n"
        '  """\n'
        "  Connector kinds never used: any of stairs, escalator, elevator, "
        "ramp (a kind given twice counts once).\n"
        '  """\n'
        "  exclude: [String!] = null\n"
        "}"
    ),
    '"""A unit-to-attribute assignment to add or remove."""\n'
    "input UnitAttributeAssignmentInput {\n  groupId: ID!\n  attributeId: ID!\n"
    "  assetId: ID!\n  unitId: ID!\n}",
    "input WaypointInput {\n  id: ID = null\n  name: String = null\n  x: Float = null\n"
    "  y: Float = null\n  floorId: ID = null\n\n"
    '  """\n  WGS84 longitude, with `lat` (not with `x`, `y` or `id`): placed on the map by '
    'the inverse of its georeference, within 5 m of its level\'s outline.\n  """\n'
    "  lon: Float = null\n\n"
    '  """WGS84 latitude, with `lon`."""\n  lat: Float = null\n\n'
    '  """\n  With `lon` and `lat`, instead of `floorId`: the level as the map\'s GeoJSON and '
    'tiles name it (its ordinal as a string, "0", "1", "-1").\n  """\n  level: String = null\n\n'
    '  """\n  Only a route\'s `to`, with no other field: the route goes to the nearest of these '
    'candidates, which the answer\'s `to` names.\n  """\n  nearest: NearestInput = null\n}',
    "  distanceMatrix(unitMapId: ID!, input: DistanceMatrixInput!): DistanceMatrix!\n",
    "  assignUnitAttributes(groupId: ID!, data: [UnitAttributeAssignmentInput!]!): "
    "[UnitAttributeAssignment!]!\n",
    "  unassignUnitAttributes(groupId: ID!, data: [UnitAttributeAssignmentInput!]!): "
    "[UnitAttributeAssignment!]!\n",
]


def test_the_schema_is_the_same_with_and_without_record_inputs(monkeypatch):
    with_records = str(build_schema(Settings()))
    for cls in RECORD_INPUTS:
        monkeypatch.setattr(cls.__strawberry_definition__, "from_input", None)
    assert str(build_schema(Settings())) == with_records
    for part in SDL:
        assert part in with_records, part


def waypoint(n: int) -> dict[str, Any]:
    return {"id": f"loc-{n}", "name": f"Room {n}", "x": 1.5 * n, "y": -n, "floorId": "f-1"}


MATRICES = [
    {
        "sources": [waypoint(0)],
        "targets": [waypoint(n) for n in range(1, 50)],
        "costing": "pedestrian",
        "costingOptions": {"pedestrian": {"mode": "wheelchair"}},
        "distanceMethod": "euclidean",
    },
    {"sources": [{"id": "a"}], "targets": [{"x": 1, "y": 2, "floorId": "f"}]},
    {
        "sources": [{"id": None, "name": None, "x": 0.25, "y": 7, "floorId": "f"}],
        "targets": [{"id": "b", "x": None}],
        "costing": None,
        "costingOptions": {"pedestrian": None},
        "distanceMethod": None,
    },
    {"sources": [], "targets": [], "costingOptions": {"pedestrian": {"mode": None}}},
    {"sources": [{}], "targets": [{}], "costingOptions": None},
]
ASSIGNMENTS = [
    {"groupId": "g", "attributeId": f"a{n}", "assetId": "s", "unitId": f"u{n}"} for n in range(3)
]


def converted(field_name: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The resolver's arguments as strawberry converts them, after `as_record`."""
    schema = build_schema(Settings())
    root = schema.query if field_name == "distance_matrix" else schema.mutation
    field = next(f for f in root.__strawberry_definition__.fields if f.python_name == field_name)
    graphql_field = schema._schema.get_field(  # the coerced value, as graphql-core gives it
        schema._schema.get_type("Query" if root is schema.query else "Mutation"),  # type: ignore[arg-type]
        schema.config.name_converter.from_field(field),
    )
    assert graphql_field is not None
    coerced = {
        name: coerce_input_value(value, graphql_field.args[name].type)
        for name, value in raw.items()
    }
    arguments = convert_arguments(
        coerced, field.arguments, schema.schema_converter.scalar_registry, schema.config
    )
    return {name: as_record(value) for name, value in arguments.items()}


@pytest.mark.parametrize("matrix", MATRICES)
def test_a_matrix_record_is_what_the_generic_conversion_made(matrix, monkeypatch):
    raw = {"unitMapId": "map-1", "input": matrix}
    record = converted("distance_matrix", raw)
    assert type(record["input"]) is dict
    for cls in RECORD_INPUTS:
        monkeypatch.setattr(cls.__strawberry_definition__, "from_input", None)
    # orjson tells 1 from 1.0 and keeps key order: the same bytes are the same record.
    assert orjson.dumps(record) == orjson.dumps(converted("distance_matrix", raw))


def test_a_matrix_record_with_nulls_exactly():
    record = converted("distance_matrix", {"unitMapId": "m", "input": MATRICES[2]})
    assert record == {
        "unit_map_id": "m",
        "input": {
            "sources": [{"x": 0.25, "y": 7.0, "floor_id": "f"}],
            "targets": [{"id": "b"}],
            "costing_options": {},  # `pedestrian: null` left out, as as_record did
        },
    }
    assert type(record["input"]["sources"][0]["y"]) is float


def test_assignment_records_are_what_the_generic_conversion_made(monkeypatch):
    raw = {"groupId": "g", "data": ASSIGNMENTS}
    record = converted("assign_unit_attributes", raw)
    assert record["data"][1] == {
        "group_id": "g",
        "attribute_id": "a1",
        "asset_id": "s",
        "unit_id": "u1",
    }
    for cls in RECORD_INPUTS:
        monkeypatch.setattr(cls.__strawberry_definition__, "from_input", None)
    assert orjson.dumps(record) == orjson.dumps(converted("assign_unit_attributes", raw))


@strawberry.enum
class Mode(enum.Enum):
    FOOT = "foot"


@record_input
@strawberry.input
class WithEnum:
    mode: Mode


@record_input
@strawberry.input
class WithMaybe:
    name: strawberry.Maybe[str]


@pytest.mark.parametrize("cls", [WithEnum, WithMaybe])
def test_record_input_refuses_what_is_not_a_plain_record(cls):
    context = InputContext(None, StrawberryConfig(), DEFAULT_SCALAR_REGISTRY, ())
    with pytest.raises(TypeError, match="record_input does not convert"):
        cls.__strawberry_definition__.from_input(cls, {}, context)
