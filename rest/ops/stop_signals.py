"""Work to do the moment the process is asked to stop, before the server waits for its
connections to finish: live changes never finish on their own, so their streams are
ended first (an SSE client reconnects with its last id, elsewhere or after the restart).

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


@contextlib.contextmanager
def on_stop_signal(callback: Callable[[], None]) -> Iterator[None]:
    """Run `callback` on the running loop when SIGINT or SIGTERM arrives, then the
    handler that was there. Only the main thread may set handlers: elsewhere (an app
    under a test client), nothing is chained."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def handler(sig: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(callback)
        prior = previous[signal.Signals(sig)]
        if callable(prior):
            prior(sig, frame)
        elif prior == signal.SIG_DFL:  # what the signal would have done: do it
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, prior in previous.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, prior)
