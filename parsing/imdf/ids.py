"""The ids an imported venue gets: the asset's, the stack map's and each level's (its
floor's and its map's) (issue 48, point 8; docs/imdf.md, "Import options").

Without `--id-prefix` they are the archive's own (the venue's and the levels' ids,
UUIDs as a rule), so re-imports keep updating what earlier releases imported. With a
prefix they are readable in a viewer URL: `<prefix>` (the asset), `<prefix>-stack`,
`<prefix>-level-<slug>`, the slug made of the level's short name, else its ordinal,
numbered `-2`, `-3` in level order where two levels would meet; the same venue gives
the same ids at every import.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from parsing.imdf.labels import label
from parsing.imdf.venue import Venue

PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_PREFIX_CHARS = 100  # ids stay well under 255 with the level's slug
MAX_SLUG_CHARS = 60


def prefix_problem(prefix: str) -> str | None:
    """Why `prefix` cannot begin ids (None: it can): letters, digits, `.`, `_` and `-`,
    a letter or digit first, so a viewer URL holds it as it is."""
    if not PREFIX.fullmatch(prefix):
        return (
            f"--id-prefix {prefix[:80]!r}: use letters, digits, '.', '_' and '-', "
            "beginning with a letter or a digit"
        )
    if len(prefix) > MAX_PREFIX_CHARS:
        return f"--id-prefix: at most {MAX_PREFIX_CHARS} characters (has {len(prefix)})"
    return None


@dataclass(frozen=True)
class VenueIds:
    """The asset's id, the stack map's, and each level's floor (and map) id."""

    asset: str
    stack: str
    floors: dict[str, str] = field(default_factory=dict)  # by IMDF level id

    def floor(self, level_id: str) -> str:
        return self.floors.get(level_id, level_id)


def venue_ids(venue: Venue, prefix: str | None) -> VenueIds:
    """The venue's ids, readable ones under `prefix` (module docstring)."""
    if prefix is None:
        stack = venue.venue.id if venue.venue else f"{venue.asset_id}-stack"
        return VenueIds(venue.asset_id, stack)
    floors: dict[str, str] = {}
    taken: set[str] = set()
    for level_id, level in sorted(venue.levels.items(), key=lambda item: item[1].index):
        short = label(level.feature.properties.get("short_name"), venue.languages)
        base = f"{prefix}-level-{slug(short or '') or slug(ordinal_text(level.ordinal))}"
        found, number = base, 1
        while found in taken:
            number += 1
            found = f"{base}-{number}"
        taken.add(found)
        floors[level_id] = found
    return VenueIds(venue.asset_id, f"{prefix}-stack", floors)


def slug(text: str) -> str:
    """Lowercase ASCII letters and digits joined by `-` ("Level 2" -> "level-2", "Étage"
    -> "etage"), at most MAX_SLUG_CHARS."""
    bare = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", bare.lower()))[:MAX_SLUG_CHARS].strip("-")


def ordinal_text(ordinal: float) -> str:
    """An ordinal as a slug reads it: 2 -> "2", -1 -> "minus-1", 1.5 -> "1-5"."""
    text = f"{abs(ordinal):g}".replace(".", "-")
    return f"minus-{text}" if ordinal < 0 else text
