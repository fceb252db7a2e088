"""Matches request paths against the route table on the raw (still encoded) path.

Ids may hold any character, `/` included when percent-encoded, so segments are
split before they are decoded. Static segments win over ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from rest.v1.route_rows import RestRoute


@dataclass(frozen=True)
class Match:
    route: RestRoute
    path_values: dict[str, str]


def _specificity(route: RestRoute) -> tuple[bool, ...]:
    return tuple(not segment.startswith("{") for segment in route.segments)


class Router:
    def __init__(self, routes: tuple[RestRoute, ...]) -> None:
        # By their number of segments (a path is tried against templates of its own
        # length only: for /v1/assets/{asset}, 8 of the table's 45), each length's most
        # static first, left to right: /v1/units/references before /v1/units/{unit}.
        self.by_length: dict[int, list[RestRoute]] = {}
        for route in sorted(routes, key=_specificity, reverse=True):
            self.by_length.setdefault(len(route.segments), []).append(route)

    def match(self, raw_path: str, method: str) -> tuple[Match | None, set[str]]:
        """The route for this path and method, and the methods the path allows (HEAD
        where a GET answers it).

        Only the most specific template that fits the path counts, so a static
        segment wins even for another method: GET /v1/maps/parse is 405, not E11.
        """
        segments = raw_path.strip("/").split("/") if raw_path.strip("/") else []
        allowed: set[str] = set()
        found: Match | None = None
        template: tuple[str, ...] | None = None
        for route in self.by_length.get(len(segments), ()):
            if template is not None and route.segments != template:
                continue
            values = _bind(route.segments, segments)
            if values is None:
                continue
            template = route.segments
            allowed |= route.methods
            if found is None and method in route.methods:
                found = Match(route, values)
        return found, allowed


def _bind(template: tuple[str, ...], segments: list[str]) -> dict[str, str] | None:
    if len(template) != len(segments):
        return None
    values: dict[str, str] = {}
    for expected, actual in zip(template, segments, strict=True):
        if expected.startswith("{"):
            value = unquote(actual, errors="strict")
            if value == "":
                return None
            values[expected[1:-1]] = value
        elif actual != expected:
            return None
    return values
