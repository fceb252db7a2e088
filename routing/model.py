"""The walk graph of a map as plain arrays: what is stored, and what every worker loads.

Only geometry and topology are stored (node positions, edges with their kind, steps,
modes and walk length in feet, each level's height in floors); costs that are settings
(walking speeds, stairs and elevator times, floor height) are applied when a graph is
loaded (`routing.costs`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # numpy is imported by the first graph stored or loaded, not at start:
    import numpy as np  # the constants here are on the request path (issue 15, cold start)

FOOT = 1
WHEELCHAIR = 2
BOTH = FOOT | WHEELCHAIR
MODES = {"foot": FOOT, "wheelchair": WHEELCHAIR}

# Edge kinds. WALK edges come from the paths layers and are what waypoints join;
# LINK edges join a connector to its level's graph. A DOOR joins two levels of one
# height (IMDF levels sharing an ordinal, issue 48): no floor step, its length as drawn.
WALK, LINK, STAIRS, ELEVATOR, RAMP, ESCALATOR, DOOR = range(7)
CONNECTOR_KINDS = {
    "stairs": STAIRS,
    "elevator": ELEVATOR,
    "ramp": RAMP,
    "escalator": ESCALATOR,
    "door": DOOR,
}
CONNECTOR_NAMES = {kind: name for name, kind in CONNECTOR_KINDS.items()}
CONNECTOR_MODES = {STAIRS: FOOT, ELEVATOR: BOTH, RAMP: BOTH, ESCALATOR: FOOT, DOOR: BOTH}
ADJACENT_ONLY = frozenset({STAIRS, RAMP, ESCALATOR, DOOR})  # elevators join every pair
LEVEL_DOORS = frozenset({DOOR})  # connectors that climb no floor: zero steps

# 2 added `stop_ids`; format 1 graphs still load, their connectors unnamed. 3 added
# `level_heights`; graphs of formats 1 and 2 load with each level's position as its
# height, which is what their connectors' steps were counted by.
FORMAT = 3
READABLE_FORMATS = (1, 2, 3)


@dataclass(frozen=True, eq=False)
class WalkGraph:
    """Nodes are points on a level (its position in level order, lowest 0)."""

    feet_per_unit: float
    level_uids: tuple[str, ...]  # by position
    level_floors: tuple[str | None, ...]  # the `floor` tag of each level, by position
    node_xy: np.ndarray  # (N, 2) float64, canvas units
    node_level: np.ndarray  # (N,) int32
    edge_u: np.ndarray  # (E,) int32
    edge_v: np.ndarray  # (E,) int32
    edge_length: np.ndarray  # (E,) float64, feet (walk and link edges; 0 for connectors)
    edge_kind: np.ndarray  # (E,) uint8
    edge_steps: np.ndarray  # (E,) int32, floor steps of a connector edge
    edge_modes: np.ndarray  # (E,) uint8, FOOT | WHEELCHAIR bits
    # The `data-connector-id` of each connector stop node, so that directions can name
    # the stairs or elevator taken.
    stop_ids: dict[int, str] = field(default_factory=dict)
    # Each level's height in floors, by position (`routing.levels`): what a connector's
    # steps and a ride's floors count. None: the positions (graphs stored before heights).
    level_heights: tuple[int, ...] | None = None

    def height(self, level: int) -> int:
        """The height in floors of the level at this position."""
        return level if self.level_heights is None else self.level_heights[level]

    @property
    def node_count(self) -> int:
        return int(self.node_xy.shape[0])

    @property
    def edge_count(self) -> int:
        return int(self.edge_u.shape[0])


ARRAYS = tuple(f.name for f in fields(WalkGraph) if f.name.startswith(("node_", "edge_")))


def graph_bytes(graph: WalkGraph) -> bytes:
    """The graph as an .npz file (no pickled objects), deterministic for the same graph."""
    import numpy as np

    meta = {
        "format": FORMAT,
        "feet_per_unit": graph.feet_per_unit,
        "level_uids": list(graph.level_uids),
        "level_floors": list(graph.level_floors),
        "stop_ids": {str(node): name for node, name in sorted(graph.stop_ids.items())},
        "level_heights": [graph.height(level) for level in range(len(graph.level_uids))],
    }
    buffer = io.BytesIO()
    arrays = {name: getattr(graph, name) for name in ARRAYS}
    np.savez(buffer, meta=np.frombuffer(orjson.dumps(meta), dtype=np.uint8), **arrays)
    return buffer.getvalue()


def graph_from_bytes(data: bytes) -> WalkGraph:
    import numpy as np

    with np.load(io.BytesIO(data), allow_pickle=False) as stored:
        meta = orjson.loads(stored["meta"].tobytes())
        if meta.get("format") not in READABLE_FORMATS:
            raise ValueError(
                f"walk graph format {meta.get('format')} is not one of {READABLE_FORMATS}"
            )
        arrays = {name: stored[name] for name in ARRAYS}
    return WalkGraph(
        feet_per_unit=float(meta["feet_per_unit"]),
        level_uids=tuple(meta["level_uids"]),
        level_floors=tuple(meta["level_floors"]),
        stop_ids={int(node): name for node, name in meta.get("stop_ids", {}).items()},
        level_heights=_heights(meta, len(meta["level_uids"])),
        **arrays,
    )


def _heights(meta: dict[str, Any], levels: int) -> tuple[int, ...] | None:
    """The stored heights; None (the positions) in a graph stored before them."""
    heights = meta.get("level_heights")
    if heights is None:
        return None
    if len(heights) != levels or not all(type(h) is int for h in heights):
        raise ValueError(f"walk graph level_heights {heights!r} are not one integer per level")
    return tuple(heights)
