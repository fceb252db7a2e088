"""Whether a process of this host runs: for the embedded server's pid file and for the
holder of an asset lease (storage/imports/leases.py)."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True when a process with this id runs (also one we may not signal)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
