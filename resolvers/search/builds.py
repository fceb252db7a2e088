"""How this process's search indexes were made (`resolvers.search.indexes`): counted for
the tests and `/readyz`, apart from the index so that reading the figures imports
nothing of the search (the server's start stays lean)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Builds:
    """How this process's indexes were made (tests; `figures`)."""

    full: int = 0  # from every document, read again
    updated: int = 0  # from the kept documents, the changed ones read again
    unchanged: int = 0  # none of the asset's documents changed: the index kept
    fallbacks: int = 0  # an update that could not be made, then built from everything
    stale: int = 0  # searches answered from an index older than the data (being updated)

    def figures(self) -> dict[str, int]:
        return {
            "full_builds": self.full,
            "updates": self.updated,
            "unchanged": self.unchanged,
            "fallbacks": self.fallbacks,
            "stale_answers": self.stale,
        }


BUILDS = Builds()
