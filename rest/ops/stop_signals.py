"""Work to do the moment the process is asked to stop, before the server waits for its
connections to finish: live changes never finish on their own, so their streams are
ended first (an SSE client reconnects with its last id, elsewhere or after the restart).

With a drain (`FLOORGATE_DRAIN_SECONDS`, docs/deploy.md "Readiness and drain"), SIGTERM
first only marks the process as draining (`/readyz` answers 503, everything else is
served as before), so that a load balancer stops sending to it; when the drain is over,
the streams end and the server stops as it would have at once. SIGINT (Ctrl-C), or a
second signal during the drain, stops at once.

uvicorn handles SIGINT and SIGTERM itself; this chains a callback in front of whatever
handler is installed when the app starts, and puts that handler back when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
DRAINED_BY = signal.SIGTERM  # what an orchestrator sends; SIGINT is a person at a terminal


@contextlib.contextmanager
def on_stop_signal(
    callback: Callable[[], None],
    drain_seconds: float = 0.0,
    draining: Callable[[], None] | None = None,
) -> Iterator[None]:
    """Run `callback` on the running loop when SIGINT or SIGTERM arrives, then the
    handler that was there; after SIGTERM, `draining` first and both `drain_seconds`
    later. Only the main thread may set handlers: elsewhere (an app under a test client),
    nothing is chained."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    drain: list[asyncio.TimerHandle | None] = []  # claimed by the first SIGTERM; its end

    def chain(sig: int, frame: FrameType | None) -> None:
        prior = previous[signal.Signals(sig)]
        if callable(prior):
            prior(sig, frame)
        elif prior == signal.SIG_DFL:  # what the signal would have done: do it
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    def stop(sig: int) -> None:
        callback()
        chain(sig, None)

    def begin_drain(sig: int) -> None:
        if draining is not None:
            draining()
        drain[0] = loop.call_later(drain_seconds, stop, sig)

    def handler(sig: int, frame: FrameType | None) -> None:
        if sig == DRAINED_BY and drain_seconds > 0 and not drain:
            drain.append(None)
            loop.call_soon_threadsafe(begin_drain, sig)
            return
        if drain and drain[0] is not None:
            drain[0].cancel()  # a second signal: no more waiting
        loop.call_soon_threadsafe(callback)
        chain(sig, frame)

    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        if drain and drain[0] is not None:
            drain[0].cancel()
        for sig, prior in previous.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, prior)


class Terminated(BaseException):
    """SIGTERM, raised again by uvicorn once it has shut down, where the default action
    ends the process on the spot: what `floorgate serve` runs within (the embedded
    database of `storage.embedded.runtime.database_uri`, the metrics folder) was never
    left, and the database child ran on (issue 63, finding 11). Raised instead, it unwinds
    them; the command then ends by the signal, as before (`rest.cli.main.main`)."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within: SIGTERM raises `Terminated` (uvicorn's own handler sits in front while it
    serves, and puts this one back before it raises the signal again)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
