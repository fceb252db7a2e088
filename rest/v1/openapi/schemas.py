"""JSON Schemas of REST bodies, read off the GraphQL schema and the routes' documents.

A response schema is the selection of a route's persisted document (its aliases are
the REST names) typed by the GraphQL schema; a request body schema is a GraphQL input
type with snake_case names. So a field cannot change in GraphQL without its REST
description following.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    SelectionSetNode,
    get_nullable_type,
)

from rest.v1.documents import OMITTED_WHEN_NULL
from rest.v1.names import snake
from storage.limits import MAX_ID_LENGTH

Schema = dict[str, Any]

ID_SCHEMA: Schema = {"type": "string", "minLength": 1, "maxLength": MAX_ID_LENGTH}
SCALARS: dict[str, Schema] = {
    "String": {"type": "string"},
    "ID": ID_SCHEMA,
    "Int": {"type": "integer", "format": "int32"},
    "Float": {"type": "number"},
    "Boolean": {"type": "boolean"},
    "Timestamp": {"type": "string", "format": "date-time", "example": "2026-01-15T09:00:00+00:00"},
    "JSON": {},
}


def nullable(schema: Schema) -> Schema:
    """`schema` or null (JSON Schema 2020-12, as OpenAPI 3.1 uses)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _described(schema: Schema, description: str | None) -> Schema:
    return {**schema, "description": description} if description else schema


def _scalar(kind: GraphQLScalarType | GraphQLEnumType) -> Schema:
    if isinstance(kind, GraphQLEnumType):
        return {"type": "string", "enum": list(kind.values)}
    return dict(SCALARS.get(kind.name, {}))


class SelectionSchemas:
    """Response schemas of one route document: `result`'s selection, typed."""

    def __init__(
        self,
        schema: GraphQLSchema,
        operation: OperationDefinitionNode,
        fragments: dict[str, FragmentDefinitionNode],
    ) -> None:
        self.schema = schema
        self.operation = operation
        self.fragments = fragments

    def result(self) -> tuple[GraphQLOutputType, SelectionSetNode | None]:
        """The type of the document's `result` field and its selection."""
        root = (
            self.schema.mutation_type
            if self.operation.operation.value == "mutation"
            else self.schema.query_type
        )
        assert root is not None
        (node,) = self.operation.selection_set.selections
        assert isinstance(node, FieldNode)
        return root.fields[node.name.value].type, node.selection_set

    def member(
        self, kind: GraphQLOutputType, selection: SelectionSetNode | None, name: str
    ) -> tuple[GraphQLOutputType, SelectionSetNode | None]:
        """The type and selection of field `name` of an object selection (an envelope's `data`)."""
        parent = get_nullable_type(kind)
        assert isinstance(parent, GraphQLObjectType) and selection is not None
        (node,) = [node for node in self._fields(selection) if node.name.value == name]
        return parent.fields[name].type, node.selection_set

    def of(self, kind: GraphQLOutputType, selection: SelectionSetNode | None) -> Schema:
        if isinstance(kind, GraphQLNonNull):
            return self._non_null(kind.of_type, selection)
        return nullable(self._non_null(kind, selection))

    def _non_null(self, kind: Any, selection: SelectionSetNode | None) -> Schema:
        if isinstance(kind, GraphQLList):
            return {"type": "array", "items": self.of(kind.of_type, selection)}
        if isinstance(kind, GraphQLObjectType):
            assert selection is not None
            return self.object(kind, selection)
        return _scalar(kind)

    def object(self, kind: GraphQLObjectType, selection: SelectionSetNode) -> Schema:
        properties: dict[str, Schema] = {}
        for node in self._fields(selection):
            field = kind.fields[node.name.value]
            name = node.alias.value if node.alias else node.name.value
            properties[name] = _described(
                self.of(field.type, node.selection_set), field.description
            )
        omitted = OMITTED_WHEN_NULL.get(self.fragment_name(selection) or "", ())
        for name in omitted:  # left out rather than null: not required, never null
            properties[name] = _not_null(properties[name])
        required = [name for name in properties if name not in omitted]
        return {"type": "object", "required": required, "properties": properties}

    def fragment_name(self, selection: SelectionSetNode) -> str | None:
        """The fragment a selection spreads, if it is nothing but that spread."""
        (node, *others) = selection.selections
        return node.name.value if isinstance(node, FragmentSpreadNode) and not others else None

    def _fields(self, selection: SelectionSetNode) -> list[FieldNode]:
        fields: list[FieldNode] = []
        for node in selection.selections:
            if isinstance(node, FragmentSpreadNode):
                fields += self._fields(self.fragments[node.name.value].selection_set)
            else:
                assert isinstance(node, FieldNode)
                fields.append(node)
        return fields


def input_schema(kind: GraphQLInputType) -> Schema:
    """A GraphQL input type as the JSON a REST client sends (snake_case names; the
    camelCase spelling is accepted too, see `rest.v1.names.camelized`)."""
    if isinstance(kind, GraphQLNonNull):
        inner = kind.of_type
        schema = input_schema(inner)
        return _not_null(schema)
    if isinstance(kind, GraphQLList):
        return nullable({"type": "array", "items": input_schema(kind.of_type)})
    if isinstance(kind, GraphQLInputObjectType):
        properties = {
            snake(name): _described(input_schema(field.type), field.description)
            for name, field in kind.fields.items()
        }
        required = [
            snake(name)
            for name, field in kind.fields.items()
            if isinstance(field.type, GraphQLNonNull)
        ]
        body: Schema = {"type": "object", "properties": properties}
        if required:
            body["required"] = required
        return nullable(body)
    assert isinstance(kind, GraphQLScalarType | GraphQLEnumType)
    return nullable(_scalar(kind))


def _not_null(schema: Schema) -> Schema:
    """Undo `nullable` at the top of a schema."""
    if "anyOf" in schema and {"type": "null"} in schema["anyOf"]:
        inner: Schema
        (inner,) = [s for s in schema["anyOf"] if s != {"type": "null"}]
        return inner
    kind = schema.get("type")
    if isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}
    return schema
