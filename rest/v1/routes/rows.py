"""The kinds a row of the REST route table is made of (`rest.v1.routes`): a route, its
parameters and body, the shape of its answer, its example request, and the vendor paths'
aliases of a row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from rest.v1.documents import PAGING, query_document
from rest.v1.names import rest_name
from storage.settings import Settings

if TYPE_CHECKING:
    from graphql import DocumentNode, OperationDefinitionNode


class Shape(StrEnum):
    PAGED = "paged"  # {paging, data}: paging numbers become URLs
    SINGLE = "single"  # one object
    DATA = "data"  # {data: [...]} without paging
    VERSIONED = "versioned"  # {data: [...]} with an ETag (If-None-Match answers 304)
    NO_CONTENT = "no-content"  # 204 without a body
    EVENTS = "events"  # a subscription's results as Server-Sent Events (rest/v1/event_stream.py)
    TILE = (
        "tile"  # a vector tile's bytes (`data`, base64 in GraphQL) with its `etag` (docs/tiles.md)
    )


WRAPPERS = {Shape.PAGED: PAGING, Shape.VERSIONED: "etag"}
TILE_TYPE = "application/vnd.mapbox-vector-tile"


# Spellings of query parameters seen in real clients, accepted for the spec's names
# (docs/api.md, Inputs). Links (`next_url`, `prev_url`) always use the spec's names.
SYNONYMS = {"asset_id": "asset", "per_page": "per-page"}


@dataclass(frozen=True)
class Param:
    """A REST input and the GraphQL variable it fills."""

    name: str
    variable: str
    graphql_type: str
    location: str = "query"  # "query", "path", or "body" (a member of a JSON body)

    @property
    def required(self) -> bool:
        """A path segment, or a query parameter whose variable is non-null (`q`)."""
        return self.location == "path" or self.graphql_type.endswith("!")

    @property
    def is_int(self) -> bool:
        return self.graphql_type.startswith("Int")

    @property
    def spellings(self) -> tuple[str, ...]:
        """The name and its synonyms, as a query may give them."""
        return (self.name, *(other for other, name in SYNONYMS.items() if name == self.name))


@dataclass(frozen=True)
class Body:
    """A request body that fills one GraphQL variable.

    `media_types[0]` is the one a 415 names. Text bodies are decoded (charset
    parameter, else the XML declaration, else UTF-8); `max_bytes` names the
    Settings limit for this body (413 above it), else the global body limit holds.
    A JSON body is an object whose one member `name` fills the variable
    (`rest.v1.json_body`).
    """

    variable: str
    graphql_type: str
    media_types: tuple[str, ...]
    max_bytes: Callable[[Settings], int] | None = None
    name: str = "body"  # the REST name in 422 `fields`; the member of a JSON body
    json: bool = False
    # Counts checked before any item is validated (messages under `name`, or under
    # `name.counted` when given), e.g. E18's pairs, a route's stops.
    counts: Callable[[Any], list[str]] | None = None
    counted: str = ""
    # When given, the `name` member is an object whose members fill one variable each
    # (`{"data": {"from": ..., "to": ...}}` for `route(from:, to:)`); `variable` is unused.
    members: tuple[Param, ...] = ()

    def variables(self) -> dict[str, str]:
        """The GraphQL variables the body fills, with their types."""
        if self.members:
            return {member.variable: member.graphql_type for member in self.members}
        return {self.variable: self.graphql_type}


@dataclass(frozen=True)
class Example:
    """A request of the route on the demo property: its path values, query and body. The
    OpenAPI document shows it with the demo's answer, which `make generate` records
    (tests/rest/v1/openapi/test_document.py), so a new row brings its example with it."""

    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None

    def under_market(self, market: dict[str, str]) -> Example:
        """This request at its vendor path: `market` (the asset and its market) fills the
        path, so the query's `asset` filter goes."""
        query = {name: value for name, value in self.query.items() if name != "asset"}
        return Example({**self.path, **market}, query, self.body)


@dataclass(frozen=True)
class RestRoute:
    method: str
    path: str
    operation_id: str
    summary: str
    graphql_field: str
    fragment: str | None
    shape: Shape
    params: tuple[Param, ...] = ()
    body: Body | None = None
    media_type: str = "application/json"  # of the 200 response
    mutation: bool = False
    # A vendor path (`under_market`): the operation id of the flat route it spells again.
    alias_of: str | None = None
    # Variables the document declares but this spelling never fills (its alias's path
    # does), so that a route and its alias run one and the same document.
    unset: tuple[Param, ...] = ()
    # A request on the demo (keyword, required): no answer depends on it; the OpenAPI
    # document shows it with the demo's answer.
    example: Example = field(kw_only=True, compare=False)
    document: str = field(init=False)
    segments: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "segments", tuple(self.path.strip("/").split("/")))
        variables = {param.variable: param.graphql_type for param in (*self.params, *self.unset)}
        if self.body is not None:
            variables.update(self.body.variables())
        text = query_document(
            variables,
            self.graphql_field,
            self.fragment,
            wrapper=WRAPPERS.get(self.shape),
            operation=self.operation,
        )
        object.__setattr__(self, "document", text)

    @property
    def methods(self) -> frozenset[str]:
        """The methods it answers: a GET's HEAD too (RFC 9110 9.3.2), but not a stream's,
        whose head would hold a subscription for nothing."""
        if self.method == "GET" and self.shape is not Shape.EVENTS:
            return frozenset({"GET", "HEAD"})
        return frozenset({self.method})

    @property
    def operation(self) -> str:
        if self.shape is Shape.EVENTS:
            return "subscription"
        return "mutation" if self.mutation else "query"

    @cached_property
    def parsed(self) -> DocumentNode:
        """Parsed on first use, not at import: all of them take 15 ms of a cold start, and
        a planned route (`schema.execution.running.planned`) answers without GraphQL imported."""
        from graphql import parse

        return parse(self.document)

    @cached_property
    def definition(self) -> OperationDefinitionNode:
        """The document's one operation."""
        from graphql import OperationDefinitionNode

        definitions = self.parsed.definitions
        (operation,) = (d for d in definitions if isinstance(d, OperationDefinitionNode))
        return operation

    @cached_property
    def reads(self) -> frozenset[str]:
        """The query parameters the route reads (with their synonyms), and the key's."""
        names = (
            name for param in self.params if param.location == "query" for name in param.spellings
        )
        return frozenset((*names, "api-key"))

    @property
    def keeps_answers(self) -> bool:
        """Whether its answers are kept while what they read holds: GETs, and queries
        with a JSON body (E18, route), whose answer is as much a read as a GET's; not
        writes, nor E10, whose SVG text is no variables worth a key, nor a stream."""
        if self.shape is Shape.EVENTS:
            return False
        if self.method == "GET":
            return True
        return not self.mutation and self.body is not None and self.body.json

    def param_name(self, variable: str) -> str:
        """The REST name of a GraphQL variable (or of a place in it, `data.3.unitId`),
        for error `fields`."""
        head, dot, rest = variable.partition(".")
        if dot:
            return f"{self.param_name(head)}.{rest_name(rest)}"
        for param in self.params:
            if param.variable == variable:
                return param.name
        if self.body is not None:
            for member in self.body.members:
                if member.variable == variable:
                    return f"{self.body.name}.{member.name}"
            if self.body.variable == variable:
                return self.body.name
        return variable


def path(name: str, variable: str) -> Param:
    return Param(name, variable, "ID!", "path")


# Vendor paths (docs/api.md, "Vendor paths"): clients of the vendor's API name the
# asset and its market before a resource. Each is an alias of a flat route.
MARKET_PREFIX = "/v1/assets/{asset}/{market}/"
MARKET = Param("market", "market", "String", "path")


def under_market(
    flat: RestRoute, tail: str, operation_id: str, example_market: dict[str, str]
) -> RestRoute:
    """`flat` at `/v1/assets/{asset}/{market}/<tail>`: the same field, fragment, shape and
    document; the path's asset fills `assetId` (the flat route's `asset` filter goes) and
    its market `market`, which the resolvers hold to the asset's (else 404). Its example is
    the flat route's at `example_market` (path values of `asset` and `market`)."""
    asset_type = next((p.graphql_type for p in flat.params if p.variable == "assetId"), "ID")
    params = (
        Param("asset", "assetId", asset_type, "path"),
        MARKET,
        *(param for param in flat.params if param.variable != "assetId"),
    )
    summary = f"{flat.summary}, under the asset's market"
    return replace(
        flat,
        path=MARKET_PREFIX + tail,
        operation_id=operation_id,
        summary=summary,
        params=params,
        alias_of=flat.operation_id,
        example=flat.example.under_market(example_market),
    )


def with_market_aliases(
    flat_routes: tuple[RestRoute, ...],
    aliases: dict[str, tuple[str, str]],
    example_market: dict[str, str],
) -> tuple[RestRoute, ...]:
    """The flat routes, each declaring its alias's variables too (`unset`), then the
    aliases (`aliases`: flat operation id to the alias's path tail and operation id; their
    examples at `example_market`). Flat rows come first, so a GraphQL list names its flat
    REST address."""
    flat_rows: list[RestRoute] = []
    alias_rows: list[RestRoute] = []
    for route in flat_routes:
        spelled = aliases.get(route.operation_id)
        if spelled is None:
            flat_rows.append(route)
            continue
        alias = under_market(route, *spelled, example_market)
        own = {param.variable for param in route.params}
        unset = tuple(param for param in alias.params if param.variable not in own)
        flat_rows.append(replace(route, unset=unset))
        alias_rows.append(alias)
    assert len(alias_rows) == len(aliases), "an alias names no flat route"
    return (*flat_rows, *alias_rows)
