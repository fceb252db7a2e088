"""A drawing's connectors as places (issue 66, point 5: the demo's elevators and stairs,
which every route rides, were no places: "elevator" found nothing and `nearest {q:
"elevator"}` was a 422). A map processed for pathfinding gets a derived location for each
connector on each level it stops at, as its units get one: named by its kind ("Elevator",
"Stairs 2" when the map has several of a kind; `svc:name=generated`), tagged with its kind
(`svc:category`, so the category words of every language find it) and its connector
(`svc:connector-id`, so a closure of it closes and names the place).

A connector needs no place of its own where one already stands for it: a unit of the
drawing with its id (a lift drawn as a unit), a location given with its
`svc:connector-id`, or a door between levels of one height (nobody looks for it)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from parsing.imdf.categories import category_label
from parsing.parsed_map import ParsedMap
from routing.model import CONNECTOR_KINDS, LEVEL_DOORS
from storage.imports.documents import derived_location_id


@dataclass(frozen=True)
class ConnectorPlace:
    location_id: str
    connector_id: str
    kind: str  # the drawing's `data-connector`: stairs, elevator, escalator, ramp
    name: str
    level_uid: str | None
    x: float
    y: float


def connector_places(
    map_id: str, parsed: ParsedMap, given: Iterable[str] = ()
) -> list[ConnectorPlace]:
    """The places of `parsed`'s connectors, one per connector and level (the first
    element drawn there), in connector id then level order; none for those in `given`
    (connector ids a given location stands for) or that a unit of the drawing is."""
    skipped = {*given, *(unit.id for unit in parsed.units)}
    stops: dict[str, dict[str | None, tuple[float, float]]] = defaultdict(dict)
    kinds: dict[str, str] = {}  # connector id -> its kind, as first drawn
    for connector in parsed.connectors:
        if connector.connector_id in skipped or CONNECTOR_KINDS.get(connector.kind) in LEVEL_DOORS:
            continue
        stops[connector.connector_id].setdefault(connector.level_uid, connector.centre)
        kinds.setdefault(connector.connector_id, connector.kind)
    by_kind: dict[str, list[str]] = defaultdict(list)
    for connector_id in sorted(stops):
        by_kind[kinds[connector_id]].append(connector_id)
    order = [level.uid for level in parsed.levels]
    places = []
    for connector_id in sorted(stops):
        levels, kind = stops[connector_id], kinds[connector_id]
        word, alike = category_label(kind), by_kind[kind]
        name = word if len(alike) == 1 else f"{word} {alike.index(connector_id) + 1}"
        for level_uid in sorted(levels, key=lambda uid: _position(order, uid)):
            x, y = levels[level_uid]
            location_id = derived_location_id(map_id, f"{connector_id}@{level_uid or ''}")
            places.append(ConnectorPlace(location_id, connector_id, kind, name, level_uid, x, y))
    return places


def _position(order: list[str], uid: str | None) -> int:
    return order.index(uid) if uid in order else len(order)
