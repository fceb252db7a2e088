"""CPU-bound work (SVG parses, walk graphs, distance matrices) runs on a few worker
threads, never on the event loop, so other requests keep their latency.

The pool is small and shared: a flood of parses queues here instead of taking every
core and all memory at once. A request cancelled by its time budget stops waiting at
once; its work is dropped if it has not started, and work that takes a `stop` event
(routes and distance matrices: `routing.stopping`) ends at its next check, so no thread
computes on for an answer nobody waits for (issue 45: a route past its budget held a
core, and 15 GB, long after its 503).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
CPU_THREADS = 2

_pool = ThreadPoolExecutor(max_workers=CPU_THREADS, thread_name_prefix="floorgate-cpu")


async def run_cpu(function: Callable[..., T], *args: Any, stoppable: bool = False) -> T:
    """`function(*args)` on the pool; with `stoppable`, also `stop=<threading.Event>`,
    set when the awaiting request is cancelled."""
    stop = threading.Event()
    call = (
        functools.partial(function, *args, stop=stop)
        if stoppable
        else (functools.partial(function, *args))
    )
    future = asyncio.get_running_loop().run_in_executor(_pool, call)
    try:
        return await future
    except asyncio.CancelledError:
        stop.set()
        raise
