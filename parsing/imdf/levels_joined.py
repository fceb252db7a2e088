"""Levels that no connector or opening reaches (issue 48, point 1; docs/imdf.md, "Levels
sharing an ordinal"): the venue's levels taken as a graph whose edges are the
connectors and the openings between levels of one height, on foot and step-free. A
level outside the part that holds most levels is listed with the reason
`level-not-joined` and a sentence; the units on it are listed as ever
(`routing/imdf/reachability.py`, `level-cut-off`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from parsing.imdf.venue import Venue

LEVEL_REASON = "level-not-joined"
FOOT, WHEELCHAIR = "foot", "wheelchair"
EXAMPLES = 2  # levels a sentence names


@dataclass(frozen=True)
class UnjoinedLevel:
    """A level with walked units that no connector or opening joins to the venue's other
    levels, in a mode."""

    level: str
    level_name: str
    ordinal: float
    modes: tuple[str, ...]  # ("foot", "wheelchair"), ("foot",) or ("wheelchair",)
    reason: str  # LEVEL_REASON
    detail: str  # one sentence for a person


def unjoined_levels(
    venue: Venue,
    walked: Iterable[str],
    chair_units: set[str],
    joins: Iterable[tuple[str, str, bool]],
) -> list[UnjoinedLevel]:
    """The levels (of walked units) outside the largest part of the level graph whose
    edges are `joins` (unit, unit, step-free) between units of two levels; by
    wheelchair, over step-free joins between units a wheelchair may use, among the levels
    with such units. Ties: the part with the lowest level in order."""
    level_of = {u: venue.units[u].level for u in walked}
    foot_levels = set(level_of.values())
    chair_levels = {level_of[u] for u in chair_units if u in level_of}
    foot_edges: list[tuple[str, str]] = []
    chair_edges: list[tuple[str, str]] = []
    for a, b, step_free in joins:
        if a not in level_of or b not in level_of or level_of[a] == level_of[b]:
            continue
        foot_edges.append((level_of[a], level_of[b]))
        if step_free and a in chair_units and b in chair_units:
            chair_edges.append((level_of[a], level_of[b]))
    foot_main = _main_part(venue, foot_levels, foot_edges)
    chair_main = _main_part(venue, chair_levels & foot_main, chair_edges)
    found = []
    for level_id, level in venue.levels.items():  # in level order
        if level_id not in foot_levels:
            continue
        if level_id not in foot_main:
            modes = (FOOT, WHEELCHAIR) if level_id in chair_levels else (FOOT,)
            detail = (
                "no stairs, elevator, escalator, ramp or opening joins it to "
                f"{_names(venue, foot_main)}"
            )
        elif level_id in chair_levels and level_id not in chair_main:
            modes = (WHEELCHAIR,)
            detail = (
                f"no elevator, ramp or step-free opening joins it to {_names(venue, chair_main)}"
            )
        else:
            continue
        found.append(
            UnjoinedLevel(level_id, level.name, level.ordinal, modes, LEVEL_REASON, detail)
        )
    return found


def _main_part(venue: Venue, levels: set[str], edges: list[tuple[str, str]]) -> set[str]:
    """The connected part of `levels` with the most levels (ties: the lowest level)."""
    adjacent: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        if a in levels and b in levels:
            adjacent[a].add(b)
            adjacent[b].add(a)
    order = [level for level in venue.levels if level in levels]
    best: set[str] = set()
    seen: set[str] = set()
    for start in order:
        if start in seen:
            continue
        part, stack = {start}, [start]
        while stack:
            for there in adjacent[stack.pop()]:
                if there not in part:
                    part.add(there)
                    stack.append(there)
        seen |= part
        if len(part) > len(best):
            best = part
    return best


def _names(venue: Venue, levels: set[str]) -> str:
    """The levels by name, in level order, the first EXAMPLES and how many more."""
    names = [repr(level.name) for level_id, level in venue.levels.items() if level_id in levels]
    if not names:
        return "no other level"
    more = len(names) - EXAMPLES
    shown = ", ".join(names[:EXAMPLES])
    if more > 0:
        return f"the other levels ({shown} and {more} more)"
    return f"the other level{'s' if len(names) > 1 else ''} ({' and '.join(names)})"
