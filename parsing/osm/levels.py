"""OSM `level` values as the levels they name (Simple Indoor Tagging): `0`, `-1`, `1.5`,
lists `0;1`, ranges `-1-0` and `0-2` (every whole level between the ends, the ends
included), and `repeat_on` beside them."""

from __future__ import annotations

import re

NUMBER = r"-?\d+(?:\.\d+)?"
RANGE = re.compile(rf"^({NUMBER})-({NUMBER})$")
SINGLE = re.compile(rf"^{NUMBER}$")
MAX_RANGE_LEVELS = 200  # a range such as `0-100000` is a mistake, not a building


def parse_levels(value: str) -> tuple[float, ...] | None:
    """The levels of a `level` value, ascending and without repeats; None when a part
    of it is no level (`roof`, `2-`, a range of more than MAX_RANGE_LEVELS)."""
    found: set[float] = set()
    for part in value.replace(",", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        if SINGLE.match(part):
            found.add(float(part))
            continue
        matched = RANGE.match(part)
        if matched is None:
            return None
        low, high = sorted((float(matched[1]), float(matched[2])))
        if high - low > MAX_RANGE_LEVELS:
            return None
        found |= {low, high}
        whole = int(low) if low == int(low) else int(low) + 1
        while whole < high:
            found.add(float(whole))
            whole += 1
    return tuple(sorted(found)) or None


def level_text(level: float) -> str:
    """A level as OSM writes it: 0 -> "0", -1 -> "-1", 1.5 -> "1.5"."""
    return f"{level:g}"


def levels_of(tags: dict[str, str]) -> tuple[float, ...] | None:
    """The levels a feature stands on: its `level` and `repeat_on`; None when it has no
    `level` (or one that cannot be read)."""
    given = tags.get("level")
    if given is None:
        return None
    levels = parse_levels(given)
    if levels is None:
        return None
    repeat = parse_levels(tags.get("repeat_on", "")) or ()
    return tuple(sorted(set(levels) | set(repeat)))
