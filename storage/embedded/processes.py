"""Whether a process of this host runs: for the embedded server's pid file, its users
(storage/embedded/runtime.py) and the holder of an asset lease (storage/imports/leases.py)."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """True when a process with this id runs (also one we may not signal). A zombie (it
    ended; its parent has not collected it, and an init that reaps no orphans never
    does) does not run: counted as a user of the embedded server, it kept the server
    running after the last real user stopped (issue 63, finding 11)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    stat = _stat_fields(pid)
    return stat is None or stat[0] != "Z"


def started(pid: int) -> str:
    """When the process started, in clock ticks since boot (Linux), else "": with its
    id, it names one process, not a later one given the same id."""
    stat = _stat_fields(pid)
    return stat[19] if stat is not None and len(stat) > 19 else ""


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command's name (state first), or None
    without /proc or once the process has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return None
    return text.rsplit(")", 1)[-1].split()
