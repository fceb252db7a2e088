"""The embedded server's watcher: ends the server once no process uses it any more.

The processes of a data folder share one server, and the last to leave stops it
(storage/embedded/runtime.py). A process killed with SIGKILL (or stopped by its supervisor
after its shutdown hung) leaves nothing: its server ran on, without a user, holding the
folder's storage (issue 63, finding 11). A parent-death signal on the server would end it
with the process that started it, also while others still use it. So `database_uri`
starts this watcher beside the server, in a session of its own: twice a second it looks
at the folder's users, under the folder's lock, and when none runs any more it stops the
server (woken first, if paused) and ends. It ends as well when the server has gone.

Run as `python -m storage.embedded.watch <data folder> <server pid>`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

from storage.embedded.processes import alive, started

WATCH_SECONDS = 0.5  # how often the watcher looks at the folder's users
STOP_SECONDS = 10.0  # a server's clean stop, then SIGKILL (as EmbeddedServer.stop)


def stop_server(pid: int, stamp: str, timeout: float = STOP_SECONDS) -> None:
    """SIGCONT (a paused server handles no SIGTERM), SIGTERM, wait, then SIGKILL."""
    for sent in (signal.SIGCONT, signal.SIGTERM):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sent)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _runs(pid, stamp):
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _runs(pid: int, stamp: str) -> bool:
    return alive(pid) and started(pid) == stamp


def watch(data_dir: Path, pid: int) -> None:
    """Until the server `pid` has gone: stop it once the folder has no live user."""
    from storage.embedded.runtime import forget_server, live_users, registry

    stamp = started(pid)
    while _runs(pid, stamp):
        time.sleep(WATCH_SECONDS)
        with registry(data_dir):
            if live_users(data_dir) or not _runs(pid, stamp):
                continue
            forget_server(data_dir)  # no process joins a server that is going
            stop_server(pid, stamp)
            return


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for floorgate
    watch(Path(sys.argv[1]), int(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
