"""Automatic garbage collection paused while one map is parsed.

A parse allocates hundreds of thousands of small dicts, lists and tuples that all stay
alive until it returns, so every generation-0 collection during it walks objects that
cannot be garbage: about 15% of the parse (and, on re-enabling, one more walk over all
of them, which `gc.freeze()`/`gc.unfreeze()` avoid; see below). Reference counting
still frees everything the parse drops; the cyclic collector runs again once the parse
is over. The switch is process-wide (`gc.disable()`), which is acceptable for a parse
that takes well under a second in the server's worker thread (docs/svg-parsing.md,
"Speed").
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(settle: bool = True) -> Iterator[None]:
    """No automatic collection inside the block; re-enabled after it only if it was on
    (a caller that turned it off keeps it off). `settle=False` leaves the generations as
    they are: a serving process keeps start-up's objects frozen (`rest.app.settle_heap`),
    and `gc.unfreeze()` would give every full collection those 80,000 objects to walk
    again (the p99 of 50 searches a second went from 22 ms to 50-56 ms)."""
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled and not settle:
            gc.enable()
        elif was_enabled:
            # What the parse allocated joins the oldest generation as it is (two list
            # splices): re-enabled with a full young generation, the collector would
            # otherwise walk every object of the parse at the next allocation, ~10% of
            # the parse, only to find them all alive. Cycles among them, and among
            # young objects of other threads, are found by the next full collection.
            gc.freeze()
            gc.unfreeze()
            gc.enable()
