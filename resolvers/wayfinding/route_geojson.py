"""A route as GeoJSON (issue 49, point 2): the route's polylines, connectors and
maneuvers in WGS84 through the map's georeference, for a web map (MapLibre, Leaflet).

A transform of the answer already made (`directions._route`), no routing: one
LineString per leg, one Point per connector and per maneuver, each with the indoor=
`level` of where it is (docs/geojson.md, "A route as GeoJSON"). Coordinates are
rounded to 7 decimals (about 1 cm), as the map's GeoJSON; the fit's residuals travel in
the foreign member `floorgate`, so a client sees how far to trust the positions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from parsing.geo.indoor_levels import joined_levels

if TYPE_CHECKING:
    from parsing.geo.map_frame import MapFrame
    from resolvers.wayfinding.answers import LegConnector, Route

DECIMALS = 7


def route_geojson(route: Route, frame: MapFrame, map_id: str) -> dict[str, Any]:
    """The FeatureCollection of a route: legs, then connectors, then maneuvers."""
    level_of = {framed.uid: framed.level for framed in frame.levels}

    def position(x: float, y: float) -> list[float]:
        lon, lat = frame.fit.apply(x, y)
        return [round(lon, DECIMALS) + 0.0, round(lat, DECIMALS) + 0.0]  # never -0.0

    legs, connectors = [], []
    for index, leg in enumerate(route["legs"]):
        line = [position(point["x"], point["y"]) for point in leg["points"]]
        properties = {
            "feature_type": "leg",
            "leg_index": index,
            "level_uid": leg["level_uid"],
            "floor_id": leg["floor_id"],
            "level": level_of.get(leg["level_uid"]),
            "distance": leg["distance"],
            "time": leg["time"],
        }
        legs.append(_feature(_line(line), properties))
        if (connector := leg["connector"]) is not None:
            point = position(connector["x"], connector["y"])
            connectors.append(_feature(_point(point), _connector(connector, index, level_of)))
    maneuvers = []
    for maneuver in route["maneuvers"]:
        leg = route["legs"][maneuver["leg_index"]]
        location = maneuver["location"]
        properties = {
            "feature_type": "maneuver",
            "type": maneuver["type"],
            "modifier": maneuver["modifier"],
            "instruction": maneuver["instruction"],
            "leg_index": maneuver["leg_index"],
            "floor_id": leg["floor_id"],
            "level": level_of.get(leg["level_uid"]),
            "bearing_before": maneuver["bearing_before"],
            "bearing_after": maneuver["bearing_after"],
            "distance": maneuver["distance"],
            "time": maneuver["time"],
            # the turns told with it, as their modifiers ("turn left, then turn right")
            "then": [told["modifier"] for told in maneuver["then"]],
        }
        maneuvers.append(_feature(_point(position(location["x"], location["y"])), properties))
    fit = frame.fit
    return {
        "type": "FeatureCollection",
        "features": [*legs, *connectors, *maneuvers],
        "floorgate": {
            "map_id": map_id,
            "distance": route["distance"],
            "time": route["time"],
            "rms_residual_m": round(fit.rms_residual_m, 3),
            "max_residual_m": round(fit.max_residual_m, 3),
        },
    }


def _connector(
    connector: LegConnector, leg_index: int, level_of: dict[str, str | None]
) -> dict[str, Any]:
    """A connector's properties: where it leads, its `level` both levels (`"0;1"`)."""
    ends = [level_of.get(connector["from_level_uid"]), level_of.get(connector["to_level_uid"])]
    return {
        "feature_type": "connector",
        "leg_index": leg_index,
        "id": connector["id"],
        "kind": connector["kind"],
        "from_floor_id": connector["from_floor_id"],
        "to_floor_id": connector["to_floor_id"],
        "from_level": ends[0],
        "to_level": ends[1],
        "level": joined_levels([end for end in ends if end is not None]),
        "distance": connector["distance"],
        "time": connector["time"],
    }


def _line(positions: list[list[float]]) -> dict[str, Any]:
    """A LineString; a leg of one point (a start at a connector) repeats it: RFC 7946
    asks for two positions."""
    if len(positions) == 1:
        positions = positions * 2
    return {"type": "LineString", "coordinates": positions}


def _point(position: list[float]) -> dict[str, Any]:
    return {"type": "Point", "coordinates": position}


def _feature(geometry: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Feature", "geometry": geometry, "properties": properties}
