"""What walking costs (docs/contract.md, Distances; docs/unit-map-svg.md, Walk graph).

Defaults here; `storage/settings.py` overrides them from the environment. They are
applied when a graph is loaded, so a changed setting needs no re-processing of maps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from routing.model import ELEVATOR, ESCALATOR, FOOT, RAMP, STAIRS, WalkGraph
from routing.profile import Profile

if TYPE_CHECKING:  # numpy is imported when a graph is loaded: settings hold `Costs`, and
    import numpy as np  # every process reads settings at start (issue 15, cold start)


@dataclass(frozen=True)
class Costs:
    foot_speed: float = 4.4  # ft/s
    wheelchair_speed: float = 3.5  # ft/s
    stairs_seconds_per_step: float = 12.0
    elevator_wait_seconds: float = 30.0  # once per ride
    elevator_seconds_per_step: float = 5.0
    sloped_length_factor: float = 1.5  # stairs, ramps, escalators: x floor height per step
    floor_height_ft: float = 10.0  # for a map that does not give its own

    def speed(self, mode: int) -> float:
        return self.foot_speed if mode == FOOT else self.wheelchair_speed


def edge_lengths(graph: WalkGraph, costs: Costs, floor_height: float) -> np.ndarray:
    """Feet per edge: walk and link edges as drawn; connectors by floor steps."""
    import numpy as np

    length = graph.edge_length.copy()
    steps = graph.edge_steps.astype(np.float64)
    sloped = np.isin(graph.edge_kind, (STAIRS, RAMP, ESCALATOR))
    length[sloped] = costs.sloped_length_factor * floor_height * steps[sloped]
    elevator = graph.edge_kind == ELEVATOR
    length[elevator] = floor_height * steps[elevator]
    return length


def edge_times(graph: WalkGraph, length: np.ndarray, costs: Costs, mode: int) -> np.ndarray:
    """Seconds per edge in a mode: length / walking speed, except stairs (per step) and
    elevators (the wait plus per step)."""
    return _times(graph, length, costs, costs.speed(mode))


def profile_times(
    graph: WalkGraph, length: np.ndarray, costs: Costs, profile: Profile
) -> np.ndarray:
    """Seconds per edge in a profile (issue 50): `edge_times` at the profile's walking
    speed (stairs and elevators stay per step: the speed scales what is walked), plus
    each penalised kind's seconds on each of its edges, one use each (a flight between
    two floors, an elevator ride between two stops)."""
    time = _times(graph, length, costs, profile_speed(costs, profile))
    for kind, seconds in profile.penalties:
        time[graph.edge_kind == kind] += seconds
    return time


def profile_speed(costs: Costs, profile: Profile) -> float:
    """Feet per second walked in a profile: its own, else its mode's."""
    return costs.speed(profile.mode) if profile.speed is None else profile.speed


def _times(graph: WalkGraph, length: np.ndarray, costs: Costs, speed: float) -> np.ndarray:
    import numpy as np

    time = length / speed
    steps = graph.edge_steps.astype(np.float64)
    stairs = graph.edge_kind == STAIRS
    time[stairs] = costs.stairs_seconds_per_step * steps[stairs]
    elevator = graph.edge_kind == ELEVATOR
    time[elevator] = costs.elevator_wait_seconds + costs.elevator_seconds_per_step * steps[elevator]
    return time
