"""Costing options (issue 50): `costing_options.pedestrian` of E18 and of a route, as
Valhalla spells them, checked and made a `Costing`, whose `profile` is what the walk
graph is costed by (`routing.profile`). The one place for their names, words and ranges:
the schema's descriptions and docs/routing.md ("Costing options") read them here.

- `mode`: `foot` or `wheelchair` (which never uses stairs or escalators).
- `walking_speed`: km/h, WALKING_SPEED_KMH; default the process setting of the mode.
- `step_penalty`, `elevator_penalty`, `escalator_penalty`, `ramp_penalty`: seconds added
  per use (a flight between two floors, an elevator ride), PENALTY_SECONDS.
- `exclude`: connector kinds never used (EXCLUDE_WORDS); a word given twice counts once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from resolvers.errors import FieldErrors
from resolvers.limits import MAX_QUOTED_CHARS
from routing.model import ELEVATOR, ESCALATOR, FOOT, MODES, RAMP, STAIRS
from routing.profile import Profile

WALKING_SPEED_KMH = (0.5, 25.0)  # as Valhalla's pedestrian costing
PENALTY_SECONDS = (0.0, 3600.0)
FEET_PER_KM = 1000 / 0.3048
# The penalties: option -> (its GraphQL name, the connector kind it is added to).
PENALTIES: dict[str, tuple[str, int]] = {
    "step_penalty": ("stepPenalty", STAIRS),
    "elevator_penalty": ("elevatorPenalty", ELEVATOR),
    "escalator_penalty": ("escalatorPenalty", ESCALATOR),
    "ramp_penalty": ("rampPenalty", RAMP),
}
EXCLUDE_WORDS: dict[str, int] = {
    "stairs": STAIRS,
    "escalator": ESCALATOR,
    "elevator": ELEVATOR,
    "ramp": RAMP,
}
# What a kind is called where a route's `reason` names what it may not use.
KIND_WORDS: dict[int, str] = {
    STAIRS: "stairs",
    ESCALATOR: "escalators",
    ELEVATOR: "elevators",
    RAMP: "ramps",
}


def kmh_to_feet_per_second(kmh: float) -> float:
    return kmh * FEET_PER_KM / 3600


@dataclass(frozen=True)
class Costing:
    """Checked costing options: the mode's name, the walking speed in km/h (None: the
    mode's setting), seconds per use by kind (no zeros) and the kinds excluded."""

    mode: str = "foot"
    walking_speed: float | None = None
    penalties: tuple[tuple[int, float], ...] = ()
    excluded: frozenset[int] = frozenset()

    def profile(self, closed: frozenset[int] = frozenset()) -> Profile:
        """The profile the walk graph is costed by; `closed`: the edges closures close."""
        speed = None if self.walking_speed is None else kmh_to_feet_per_second(self.walking_speed)
        return Profile(MODES.get(self.mode, FOOT), speed, self.penalties, self.excluded, closed)


def check_costing(
    errors: FieldErrors, place: str, options: Mapping[str, Any] | None, mode: str | None = None
) -> Costing:
    """`options` (the `pedestrian` object, snake_case keys, at `place`: its GraphQL path)
    checked; each bad value is reported on its own field with what is allowed. `mode`: a
    route's top-level mode, which the options' own must not contradict."""
    options = options or {}
    own_mode = options.get("mode")
    names = tuple(MODES)
    if own_mode is not None and own_mode not in MODES:
        errors.add(f"{place}.mode", f"must be one of {', '.join(names)}, not {_quoted(own_mode)}")
    elif own_mode is not None and mode in MODES and own_mode != mode:
        errors.add(f"{place}.mode", f"is {own_mode!r}, but the route's mode is {mode!r}")
    speed = options.get("walking_speed")
    low, high = WALKING_SPEED_KMH
    if speed is not None and not low <= speed <= high:
        errors.add(f"{place}.walkingSpeed", f"must be from {low:g} to {high:g} km/h, not {speed:g}")
    penalties: list[tuple[int, float]] = []
    low, high = PENALTY_SECONDS
    for option, (name, kind) in PENALTIES.items():
        seconds = options.get(option)
        if seconds is None:
            continue
        if not low <= seconds <= high:
            message = f"must be from {low:g} to {high:g} seconds, not {seconds:g}"
            errors.add(f"{place}.{name}", message)
            continue
        penalties.append((kind, float(seconds)))
    excluded: set[int] = set()
    for index, word in enumerate(options.get("exclude") or ()):
        if word not in EXCLUDE_WORDS:
            allowed = ", ".join(EXCLUDE_WORDS)
            errors.add(f"{place}.exclude.{index}", f"must be one of {allowed}, not {_quoted(word)}")
            continue
        excluded.add(EXCLUDE_WORDS[word])
    return Costing(
        own_mode if own_mode in MODES else (mode if mode in MODES else "foot"),
        None if speed is None else float(speed),
        tuple(penalties),
        frozenset(excluded),
    )


def avoided_words(kinds: frozenset[int]) -> str:
    """Kinds in words, in KIND_WORDS order: "stairs and escalators"."""
    words = [word for kind, word in KIND_WORDS.items() if kind in kinds]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _quoted(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 3] + "...")
