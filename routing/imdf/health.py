"""The venue health report (issue 65, point 6; docs/imdf.md, "The health report"): what a
venue still lacks, one finding per line, worst first.

What only the import knows is found here, from the venue in memory, its walk network
and its reachability: which levels are joined to which (on foot, by wheelchair, by
what), the places a mode cannot reach and why, and the geometry that was repaired or
dropped. The import stores it with the asset (`storage/imdf/health.py`); what can change
after the import (places listed twice, tiles that fail) is found when asked
(`routing/imdf/health_live.py`), and the route accuracy, when the import is asked for it,
comes from the exact-walk reference (`routing/reference/health_accuracy.py`).
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import shapely

from parsing.imdf.read import Report
from parsing.imdf.venue import Venue
from routing.imdf.level_doors import DOOR_KIND
from routing.imdf.model import WalkNetwork
from routing.imdf.reachability import FOOT, WHEELCHAIR, Reachability
from routing.imdf.unreachable_reasons import STEP_FREE_CONNECTORS
from routing.imdf.walks import spaces_of

HEALTH_FORMAT = 1  # of the stored report: a change of its fields changes it
ERROR, WARNING, NOTE = "error", "warning", "note"
SEVERITIES = (ERROR, WARNING, NOTE)  # worst first; `check --venue` exits 1 on an error

# Finding kinds, in the order shown within a severity: (severity on foot, severity when
# only a wheelchair is stopped). One table: the CLI, the stored report and GraphQL read it.
KINDS: dict[str, tuple[str, str]] = {
    "tile-fails": (ERROR, ERROR),
    "levels-not-joined": (ERROR, WARNING),
    "level-not-joined": (ERROR, WARNING),
    "unreachable": (WARNING, WARNING),
    "listed-twice": (WARNING, WARNING),
    "geometry-dropped": (WARNING, WARNING),
    "geometry-repaired": (NOTE, NOTE),
}
# Import remarks about geometry: a remark kind holding one of these words is geometry;
# "repaired" in it means mended and kept, any other remark of the kind means left out.
GEOMETRY_WORDS = ("polygon", "geometry", "surface", "rings", "GeometryCollection")
CONNECTOR_KINDS = ("stairs", "elevator", "escalator", "ramp", DOOR_KIND)
SHOWN = 5  # worst findings a summary prints; the report has them all
NOT_MEASURED = "route accuracy: not measured at import (import with --accuracy to measure it)"


@dataclass(frozen=True)
class Finding:
    """One thing a venue lacks: its kind (KINDS) and severity, what it is about, the
    level(s), the modes it stops, a reason code where one exists, and one sentence."""

    severity: str
    kind: str
    subject: str
    detail: str
    level: str = ""  # level name(s), for a person
    modes: tuple[str, ...] = ()
    reason: str = ""  # a reachability reason (routing/imdf/reachability.py REASONS)

    def line(self) -> str:
        """The finding on one line, as `floorgate check --venue` prints it."""
        modes = f" ({', '.join(self.modes)})" if self.modes else ""
        where = f" on {self.level!r}" if self.level else ""
        reason = f" [{self.reason}]" if self.reason else ""
        return f"{self.severity} {self.kind}{reason}: {self.subject}{where}{modes}: {self.detail}"


@dataclass(frozen=True)
class LevelPair:
    """Two levels (lower first, in level order): joined or not on foot and by wheelchair,
    the connectors that join them directly by kind, else the levels a walk goes through."""

    lower: str
    lower_name: str
    upper: str
    upper_name: str
    foot: bool
    wheelchair: bool
    connectors: tuple[tuple[str, int], ...]  # (kind, count), kinds in CONNECTOR_KINDS order
    via: tuple[str, ...] = ()  # level names between them on foot, when none joins them directly

    def by_what(self) -> str:
        if self.connectors:
            return ", ".join(f"{kind} x{count}" for kind, count in self.connectors)
        if self.via:
            return "through " + ", ".join(repr(name) for name in self.via)
        return "nothing"


@dataclass(frozen=True)
class AccuracyPair:
    """One pair of the sample: the route's length against the exact shortest walk."""

    source: str
    target: str
    map_id: str
    route_m: float
    exact_m: float

    @property
    def ratio(self) -> float:
        return self.route_m / self.exact_m if self.exact_m > 0 else 1.0


@dataclass(frozen=True)
class Accuracy:
    """Route accuracy on a seeded sample of pairs (issue 65, point 4): the ratio of the
    route to the exact shortest walk, median, p90 and max, and the worst pairs."""

    pairs: int
    median: float
    p90: float
    max: float
    seed: int
    worst: tuple[AccuracyPair, ...] = ()


# The sample the report measures: the same pairs at every import of a venue.
ACCURACY_SEED = 0
ACCURACY_PAIRS = 200


@dataclass(frozen=True)
class HealthReport:
    """The report: its level pairs, findings worst first, the accuracy section, and
    which parts were found (`import`: stored at import; `live`: found when asked)."""

    levels: int
    level_pairs: tuple[LevelPair, ...] = ()
    findings: tuple[Finding, ...] = ()
    accuracy: Accuracy | None = None
    parts: tuple[str, ...] = ("import",)
    tiles_checked: int = 0
    notes: tuple[str, ...] = ()  # what could not be found, and why

    def worst(self) -> str | None:
        """The worst severity of a finding, or None with no finding."""
        return next((s for s in SEVERITIES if any(f.severity == s for f in self.findings)), None)

    def counts(self) -> dict[str, int]:
        """Findings per kind, in KINDS order."""
        found = Counter(f.kind for f in self.findings)
        return {kind: found[kind] for kind in KINDS if found[kind]}


def severity_of(kind: str, modes: Iterable[str]) -> str:
    on_foot, chair_only = KINDS[kind]
    return on_foot if FOOT in modes or not modes else chair_only


def ordered(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Worst first: by severity, then kind (KINDS order); ties keep their order."""
    kinds = list(KINDS)
    return tuple(
        sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), kinds.index(f.kind)))
    )


def build_health(
    venue: Venue,
    network: WalkNetwork,
    reached: Reachability,
    accuracy: Accuracy | None = None,
) -> HealthReport:
    """The part of the report only the import knows, from what `venue_dataset` made
    (`accuracy`: measured by `routing.reference.health_accuracy` when the import was asked
    to)."""
    pairs = level_pairs(venue, network)
    findings = [
        *_pair_findings(venue, pairs, network),
        *_level_findings(reached),
        *_unreachable_findings(reached),
        *geometry_findings(venue.report),
    ]
    return HealthReport(len(venue.levels), tuple(pairs), ordered(findings), accuracy)


def level_pairs(venue: Venue, network: WalkNetwork) -> list[LevelPair]:
    """Every pair of levels with walked units: the connectors whose stops stand in walked
    units of both (stairs, elevator, escalator, ramp; a door between levels of one
    height), and whether a walk or a wheelchair gets from one to the other at all."""
    spaces = {s.id: s for s in spaces_of(venue)}
    walked = {i for i, s in spaces.items() if s.walkable}
    chair = {i for i in walked if spaces[i].wheelchair}
    levels = [lv for lv in venue.levels if any(spaces[u].level == lv for u in walked)]
    trees = {}
    for level in levels:
        ids = sorted(u for u in walked if spaces[u].level == level)
        trees[level] = (shapely.STRtree([spaces[u].shape for u in ids]), ids)
    stands: dict[str, list[tuple[str, str, bool]]] = defaultdict(list)  # connector -> ends
    for stop in network.stops:
        if stop.kind == DOOR_KIND or stop.level not in trees:
            continue  # doors between levels: from their units, below
        tree, ids = trees[stop.level]
        hits = sorted(ids[int(i)] for i in tree.query(shapely.Point(stop.point), "dwithin", 1e-6))
        if hits:
            hits.sort(key=lambda u: (spaces[u].kind != stop.kind, u))
            stands[stop.connector_id].append((stop.level, stop.kind, hits[0] in chair))
    direct: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    foot_edges: set[tuple[str, str]] = set()
    chair_edges: set[tuple[str, str]] = set()
    order = {level: n for n, level in enumerate(venue.levels)}

    def join(a: str, b: str, kind: str, step_free: bool) -> None:
        key = (a, b) if order[a] < order[b] else (b, a)
        direct[key][kind] += 1
        foot_edges.add(key)
        if step_free:
            chair_edges.add(key)

    for ends in stands.values():
        seen: set[tuple[str, str]] = set()
        for i, (a, kind, a_chair) in enumerate(ends):
            for b, _, b_chair in ends[i + 1 :]:
                key = (a, b) if order.get(a, 0) < order.get(b, 0) else (b, a)
                if a == b or key in seen:
                    continue
                seen.add(key)
                join(a, b, kind, kind in STEP_FREE_CONNECTORS and a_chair and b_chair)
    for _, a, b in network.level_joins:  # only doors a wheelchair passes are joined
        if a in walked and b in walked and spaces[a].level != spaces[b].level:
            join(spaces[a].level, spaces[b].level, DOOR_KIND, a in chair and b in chair)
    found = []
    for i, lower in enumerate(levels):
        for upper in levels[i + 1 :]:
            route = _path(foot_edges, lower, upper)
            kinds = direct.get((lower, upper), Counter())
            found.append(
                LevelPair(
                    lower,
                    venue.levels[lower].name,
                    upper,
                    venue.levels[upper].name,
                    route is not None,
                    _path(chair_edges, lower, upper) is not None,
                    tuple((k, kinds[k]) for k in CONNECTOR_KINDS if kinds[k]),
                    () if kinds or route is None else tuple(venue.levels[v].name for v in route),
                )
            )
    return found


def _path(edges: set[tuple[str, str]], start: str, end: str) -> tuple[str, ...] | None:
    """The levels strictly between `start` and `end` on a shortest chain of joined
    levels; None when none joins them."""
    adjacent: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        adjacent[a].add(b)
        adjacent[b].add(a)
    before: dict[str, str] = {start: start}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == end:
            chain = []
            while here != start:
                here = before[here]
                chain.append(here)
            return tuple(reversed(chain[:-1]))
        for there in sorted(adjacent[here]):
            if there not in before:
                before[there] = here
                queue.append(there)
    return None


def _pair_findings(venue: Venue, pairs: list[LevelPair], network: WalkNetwork) -> list[Finding]:
    """A finding per pair of levels not joined on foot, or not by wheelchair."""
    none_at_all = not network.stops and not network.level_joins
    found = []
    for pair in pairs:
        if pair.foot and pair.wheelchair:
            continue
        modes = (WHEELCHAIR,) if pair.foot else (FOOT, WHEELCHAIR)
        if none_at_all:
            detail = (
                "the venue's data has no stairs, elevator, escalator, ramp or door between "
                "levels at all: nothing joins any two levels"
            )
        elif pair.foot:
            detail = (
                f"joined on foot ({pair.by_what()}), but no elevator, ramp or step-free "
                "door joins them, directly or through other levels"
            )
        else:
            detail = (
                "no stairs, elevator, escalator, ramp or door joins them, directly or "
                "through other levels"
            )
        found.append(
            Finding(
                severity_of("levels-not-joined", modes),
                "levels-not-joined",
                f"{pair.lower_name!r} and {pair.upper_name!r}",
                detail,
                modes=modes,
            )
        )
    return found


def _level_findings(reached: Reachability) -> list[Finding]:
    return [
        Finding(
            severity_of("level-not-joined", level.modes),
            "level-not-joined",
            f"level {level.level_name!r} (ordinal {level.ordinal:g})",
            level.detail,
            modes=level.modes,
        )
        for level in reached.levels
    ]


def _unreachable_findings(reached: Reachability) -> list[Finding]:
    return [
        Finding(
            severity_of("unreachable", unit.modes),
            "unreachable",
            f"{unit.name or unit.unit_id!r} ({unit.category or 'unit'} {unit.unit_id})",
            unit.detail,
            unit.level_name,
            unit.modes,
            unit.reason,
        )
        for unit in reached.unreachable
    ]


def geometry_findings(report: Report) -> list[Finding]:
    """One finding per import remark about geometry: repaired (kept) or dropped."""
    found = []
    for kind, count in sorted(report.counts.items()):
        if not any(word in kind for word in GEOMETRY_WORDS):
            continue
        code = "geometry-repaired" if "repaired" in kind else "geometry-dropped"
        examples = "; ".join(report.examples.get(kind, []))
        found.append(
            Finding(
                severity_of(code, ()),
                code,
                f"{count} feature{'' if count == 1 else 's'} (e.g. {examples})",
                kind,
            )
        )
    return found


# -- the stored form (a JSON document: storage/imdf/health.py keeps it, GraphQL reads it)


def health_document(report: HealthReport) -> dict[str, Any]:
    """The report as JSON-ready data, snake_case fields (as GraphQL's types read them)."""
    accuracy = report.accuracy
    return {
        "format": HEALTH_FORMAT,
        "levels": report.levels,
        "parts": list(report.parts),
        "worst": report.worst(),
        "counts": [{"kind": k, "count": n} for k, n in report.counts().items()],
        "tiles_checked": report.tiles_checked,
        "notes": list(report.notes),
        "level_pairs": [
            {
                "lower": p.lower,
                "lower_name": p.lower_name,
                "upper": p.upper,
                "upper_name": p.upper_name,
                "foot": p.foot,
                "wheelchair": p.wheelchair,
                "connectors": [{"kind": k, "count": n} for k, n in p.connectors],
                "via": list(p.via),
            }
            for p in report.level_pairs
        ],
        "findings": [
            {
                "severity": f.severity,
                "kind": f.kind,
                "subject": f.subject,
                "detail": f.detail,
                "level": f.level,
                "modes": list(f.modes),
                "reason": f.reason,
                "line": f.line(),
            }
            for f in report.findings
        ],
        "accuracy": None
        if accuracy is None
        else {
            "pairs": accuracy.pairs,
            "median": accuracy.median,
            "p90": accuracy.p90,
            "max": accuracy.max,
            "seed": accuracy.seed,
            "worst": [
                {
                    "source": w.source,
                    "target": w.target,
                    "map_id": w.map_id,
                    "route_m": w.route_m,
                    "exact_m": w.exact_m,
                    "ratio": w.ratio,
                }
                for w in accuracy.worst
            ],
        },
    }


def health_from_document(document: dict[str, Any]) -> HealthReport:
    """The report `health_document` wrote (the live part left out: it is found again)."""
    accuracy = document.get("accuracy")
    return HealthReport(
        int(document["levels"]),
        tuple(
            LevelPair(
                p["lower"],
                p["lower_name"],
                p["upper"],
                p["upper_name"],
                bool(p["foot"]),
                bool(p["wheelchair"]),
                tuple((c["kind"], int(c["count"])) for c in p["connectors"]),
                tuple(p["via"]),
            )
            for p in document["level_pairs"]
        ),
        tuple(
            Finding(
                f["severity"],
                f["kind"],
                f["subject"],
                f["detail"],
                f["level"],
                tuple(f["modes"]),
                f["reason"],
            )
            for f in document["findings"]
            if f["kind"] not in LIVE_KINDS
        ),
        None
        if accuracy is None
        else Accuracy(
            int(accuracy["pairs"]),
            float(accuracy["median"]),
            float(accuracy["p90"]),
            float(accuracy["max"]),
            int(accuracy["seed"]),
            tuple(
                AccuracyPair(w["source"], w["target"], w["map_id"], w["route_m"], w["exact_m"])
                for w in accuracy["worst"]
            ),
        ),
        ("import",),
    )


LIVE_KINDS = frozenset({"tile-fails", "listed-twice"})  # found when asked, never stored


def with_live(
    report: HealthReport | None,
    live: Iterable[Finding],
    tiles_checked: int,
    notes: Iterable[str] = (),
) -> HealthReport:
    """The stored report with what was found now; without a stored report (an asset
    imported before the report existed, or not by import-imdf/import-osm), the live part
    alone and a note that the rest needs a re-import."""
    extra = list(notes)
    if report is None:
        extra.insert(
            0,
            "no stored report: level pairs, unreachable places, repaired geometry and "
            "route accuracy are found by import-imdf or import-osm; import the venue again",
        )
        base = HealthReport(0, parts=())
    else:
        base = report
    if base.accuracy is None and report is not None:
        extra.append(NOT_MEASURED)
    findings = ordered([*base.findings, *live])
    return replace(
        base,
        findings=findings,
        parts=(*base.parts, "live"),
        tiles_checked=tiles_checked,
        notes=tuple(extra),
    )


def accuracy_lines(accuracy: Accuracy | None) -> list[str]:
    """The accuracy section: its figures, then its worst pairs with their maps."""
    if accuracy is None:
        return ["route accuracy: not measured"]
    lines = [
        f"route accuracy: {accuracy.pairs} pairs (seed {accuracy.seed}), median "
        f"{accuracy.median:.3f}, p90 {accuracy.p90:.3f}, max {accuracy.max:.3f}"
    ]
    lines += [
        f"  {w.ratio:.3f} {w.source!r} - {w.target!r} ({w.map_id}): {w.route_m:.1f} m "
        f"routed, {w.exact_m:.1f} m exact"
        for w in accuracy.worst
    ]
    return lines


def summary_lines(report: HealthReport, asset: str = "ASSET", shown: int = SHOWN) -> list[str]:
    """A few lines for an import's terminal: counts per kind, then the worst findings
    (and the accuracy's figures, when measured)."""
    counts = report.counts()
    measured = accuracy_lines(report.accuracy)[:1] if report.accuracy is not None else []
    if not counts:
        return ["Health: no findings", *measured]
    total = sum(counts.values())
    listed = ", ".join(f"{kind} {count}" for kind, count in counts.items())
    lines = [f"Health: {total} finding(s), worst {report.worst()}: {listed}"]
    lines += [f"  {finding.line()}" for finding in report.findings[:shown]]
    if total > shown:
        lines.append(f"  ... {total - shown} more: floorgate check --venue {asset}")
    return [*lines, *(f"  {line}" for line in measured)]
