"""The health report's route accuracy (issue 65, points 4 and 6; docs/imdf.md, "The
health report"): the exact-walk reference's figures on the report's seeded sample, as the
report's `Accuracy` section. Here, beside the reference, so that the report's module
(`routing/imdf/health.py`) needs nothing of the oracle that judges the walk graphs."""

from __future__ import annotations

from collections.abc import Mapping

from parsing.imdf.venue import Venue
from routing.imdf.health import ACCURACY_PAIRS, ACCURACY_SEED, Accuracy, AccuracyPair
from routing.reference.accuracy import RouteAccuracy, route_accuracy


def measure_accuracy(venue: Venue, svgs: Mapping[str, str], id_prefix: str | None) -> Accuracy:
    """Route accuracy on the report's sample: E18 on the venue's drawings against the
    exact shortest walk (0.1 s of CPU on Caserne, 3.4 s on Grand'Place, 6.1 s on Gare
    de l'Est: most of it E18's walk graphs and matrix, the reference 0.5 s and 1.8 s)."""
    measured = route_accuracy(
        venue, svgs, id_prefix=id_prefix, seed=ACCURACY_SEED, pairs=ACCURACY_PAIRS
    )
    return accuracy_of(measured, ACCURACY_SEED)


def accuracy_of(measured: RouteAccuracy, seed: int) -> Accuracy:
    """The report's accuracy section from the reference's figures."""
    return Accuracy(
        measured.pairs,
        measured.median,
        measured.p90,
        measured.max,
        seed,
        tuple(AccuracyPair(w.a, w.b, w.map_id, w.walked, w.exact) for w in measured.worst),
    )
