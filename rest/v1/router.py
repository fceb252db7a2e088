"""Matches request paths against the route table on the raw (still encoded) path.

Ids may hold any character, `/` included when percent-encoded, so segments are
split before they are decoded. Static segments win over ids. An id may end in a static
suffix (`{y}.mvt`): the segment must end so, and the id is what comes before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from rest.v1.routes.rows import RestRoute


@dataclass(frozen=True)
class Match:
    route: RestRoute
    path_values: dict[str, str]


def _specificity(route: RestRoute) -> tuple[bool, ...]:
    return tuple(not segment.startswith("{") for segment in route.segments)


class Template:
    """The routes of one path template: each segment a static text to compare or an
    id's name, found once, not on every request."""

    __slots__ = ("methods", "parts", "routes", "segments", "suffixes")

    def __init__(self, segments: tuple[str, ...]) -> None:
        self.segments = segments
        # (text, None) for a static segment; (None, name) for an id.
        self.parts = tuple(
            (None, s[1 : s.index("}")]) if s.startswith("{") else (s, None) for s in segments
        )
        self.suffixes = tuple(s[s.index("}") + 1 :] if s.startswith("{") else "" for s in segments)
        self.routes: list[RestRoute] = []
        self.methods: set[str] = set()

    def bind(self, segments: list[str]) -> dict[str, str] | None:
        """The ids of a path of this template's length, or None when it does not fit.
        Left to right, as the template reads: an id that is not UTF-8 is an error
        (UnicodeDecodeError) even where a later static segment would not fit."""
        values: dict[str, str] = {}
        for (expected, name), suffix, actual in zip(
            self.parts, self.suffixes, segments, strict=True
        ):
            if name is None:
                if actual != expected:
                    return None
                continue
            if suffix:
                if not actual.endswith(suffix):
                    return None
                actual = actual[: -len(suffix)]
            value = unquote(actual, errors="strict")
            if value == "":
                return None
            values[name] = value
        return values


class Router:
    def __init__(self, routes: tuple[RestRoute, ...]) -> None:
        # By their number of segments (a path is tried against templates of its own
        # length only), each length's most static first, left to right:
        # /v1/units/references before /v1/units/{unit}. One template holds every route
        # that spells it (one per method).
        self.by_length: dict[int, list[Template]] = {}
        templates: dict[tuple[str, ...], Template] = {}
        for route in sorted(routes, key=_specificity, reverse=True):
            template = templates.get(route.segments)
            if template is None:
                template = templates[route.segments] = Template(route.segments)
                self.by_length.setdefault(len(route.segments), []).append(template)
            template.routes.append(route)
            template.methods |= route.methods

    def match(self, raw_path: str, method: str) -> tuple[Match | None, set[str]]:
        """The route for this path and method, and the methods the path allows (HEAD
        where a GET answers it).

        Only the most specific template that fits the path counts, so a static
        segment wins even for another method: GET /v1/maps/parse is 405, not E11.
        """
        stripped = raw_path.strip("/")
        segments = stripped.split("/") if stripped else []
        for template in self.by_length.get(len(segments), ()):
            values = template.bind(segments)
            if values is None:
                continue
            for route in template.routes:
                if method in route.methods:
                    return Match(route, values), template.methods
            return None, template.methods
        return None, set()
