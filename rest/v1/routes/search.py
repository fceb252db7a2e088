"""Search of places: names, typos, categories; nearest first from a location."""

from __future__ import annotations

from rest.v1.routes.params import PAGE
from rest.v1.routes.rows import Example, Param, RestRoute, Shape

SEARCH: tuple[RestRoute, ...] = (
    RestRoute(
        "GET",
        "/v1/search",
        "search",
        "Search places: names, typos, categories; nearest first from a location",
        "search",
        "SearchResultFields",
        Shape.PAGED,
        (
            Param("q", "q", "String!"),
            *PAGE,
            Param("asset", "asset", "ID"),
            Param("map", "unitMapId", "ID"),
            Param("floor", "floorId", "ID"),
            Param("near", "near", "ID"),
            Param("mode", "mode", "String"),
        ),
        example=Example(query={"q": "mail", "map": "map-b1", "near": "map-b1:b1-201"}),
    ),
)
