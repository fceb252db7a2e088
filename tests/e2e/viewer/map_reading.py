"""What the viewer's map shows, read from the page (issue 48, points 3, 4 and 6): its
labels' boxes, its icons and its markers on screen, as JavaScript expressions for
tests.chromium's `evaluate`, and the goal for labels at the fitted view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parsing.imdf.label_rank import LabelRank, label_rank

MIN_LABELS = 10  # at the fitted view: this many labels, or half of the named units

# Whether an element is drawn: no ancestor (nor itself) hidden.
_SHOWN = """const shown = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentNode) {
      if (e.classList.contains('off') || getComputedStyle(e).display === 'none') return false;
    }
    return true;
  };"""

# Every shown label of the shown level (units' and locations'), its text and screen box.
LABELS = f"""(() => {{
  {_SHOWN}
  return Array.from(document.querySelectorAll('.level:not(.off) .unit-labels text'))
    .filter(shown)
    .map((t) => {{ const r = t.getBoundingClientRect();
      return {{text: t.textContent, unit: t.dataset.unitLabel || null,
        location: t.dataset.locationId || null,
        mode: t.closest('.place').dataset.mode,
        left: r.left, top: r.top, right: r.right, bottom: r.bottom, height: r.height}}; }});
}})()"""

# Every icon of the shown level: its kind, accessible name, tooltip, whether it is drawn.
ICONS = f"""(() => {{
  {_SHOWN}
  return Array.from(document.querySelectorAll('.level:not(.off) .place-icon'), (icon) => ({{
    kind: icon.dataset.icon, label: icon.getAttribute('aria-label'),
    title: icon.querySelector('title').textContent, role: icon.getAttribute('role'),
    shown: shown(icon)}}));
}})()"""

# The discs of every drawn marker of the shown level (icons, the route's markers): their
# height on screen.
MARKERS = f"""(() => {{
  {_SHOWN}
  const discs = [
    ...Array.from(document.querySelectorAll('.level:not(.off) .place-icon circle'),
      (c) => ['icon', c]),
    ...Array.from(document.querySelectorAll('.level:not(.off) .route-marker circle'),
      (c) => ['route', c])];
  return discs.filter(([, c]) => shown(c)).map(([kind, c]) => {{
    const r = c.getBoundingClientRect(); return {{kind, size: r.height, width: r.width}}; }});
}})()"""


def wanted_labels(named: int) -> int:
    """The labels a level with `named` named places shows at the fitted view."""
    return min(MIN_LABELS, named // 2) if named else 0


def overlaps(labels: list[dict[str, Any]], hair: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes meet by more than a hair each way."""
    found = []
    ordered = sorted(labels, key=lambda label: label["left"])
    for n, a in enumerate(ordered):
        for b in ordered[n + 1 :]:
            if b["left"] >= a["right"] - hair:
                break
            wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
            tall = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if wide > hair and tall > hair:
                found.append((a["text"], b["text"]))
    return found


# A map's locations as the checks read them: names, floors and tags.
LOCATIONS = """query($map: ID!) { locations(unitMapId: $map, perPage: 10000)
  { data { id name floors { id } tags { key value } } } }"""


@dataclass(frozen=True)
class Ranks:
    """How much the map wants each place's name (parsing/imdf/label_rank.py), by
    location id and by the unit a location stands for, from the API's locations."""

    by_location: dict[str, LabelRank]
    by_unit: dict[str, LabelRank]
    floors: dict[str, list[str]]  # location id -> its floors' ids

    @classmethod
    def of(cls, locations: list[dict[str, Any]]) -> Ranks:
        by_location, by_unit, floors = {}, {}, {}
        for location in locations:
            if not (location["name"] or "").strip():
                continue
            tags = {tag["key"]: tag["value"] for tag in location["tags"]}
            rank = label_rank(location["name"], tags)
            by_location[location["id"]] = rank
            floors[location["id"]] = [floor["id"] for floor in location["floors"]]
            if tags.get("svc:type") == "unit" and "svc:id" in tags:
                by_unit[tags["svc:id"]] = rank
        return cls(by_location, by_unit, floors)

    def of_label(self, label: dict[str, Any]) -> LabelRank | None:
        """A shown label's rank: its unit's or location's; None for one of neither."""
        if label.get("unit") in self.by_unit:
            return self.by_unit[label["unit"]]
        return self.by_location.get(label.get("location") or "")

    def named_public(self, floor_id: str) -> int:
        """The places of a floor a map names first: public, their names given."""
        return sum(
            1
            for location, rank in self.by_location.items()
            if rank < LabelRank.QUIET and floor_id in self.floors[location]
        )
