"""Work that holds the interpreter for long (an SVG parse of megabytes) runs in worker
processes, not in a thread of the serving one.

A thread of the CPU pool (`storage.cpu`) keeps the event loop free between its steps,
but it shares the interpreter: libxml2 holds it while it reads, and a request waits for
it at every step. Two 8 MB parses in threads raised a GET's p95 from 5 to 60-100 ms on
2 cores (docs/performance-history.md, "Under attack"); in processes of their own they
cost it nothing but the cores they use.

The pool starts with the first call (no process at start-up: tests/e2e/test_cold_start.py),
from a fork server, so a worker never inherits the serving process's threads and
sockets; a thread starts it and its workers, since the fork server's first start (which
imports the parser) held the event loop for 0.1-0.3 s. Arguments and results cross by
pickle: a caller sends text and gets bytes or small objects back; text or bytes of a
mebibyte or more cross by a private file (`Spooled`), both ways. A caller cancelled
while its work runs sets that work's stop flag (a slot of shared memory the worker
polls, like the `threading.Event` of `storage.cpu`), so the worker is free again at its
next check.

A task that grew its worker by `GIVE_BACK_BYTES` is followed by a full collection and
glibc's `malloc_trim` (`_give_back`): libxml2 frees a tree into the C heap, and glibc
kept it there (after one 8.6 MB drawing, 216 MB free in a 221 MB heap, 5 MB in use).
A worker still above `PARSE_WORKER_MAX_RSS_BYTES` after that sets the pool's retire
flag: a new pool, started at once, takes the next calls, and the old one ends when its
work is done. (Issue 45: ten refused 8.6 MB drawings took each worker to 1.1 GB, most
of it trees a reference cycle kept, see `parsing.safety.discard`.) Workers ignore
SIGINT from their birth (storage/parse_worker_signals.py): a terminal's Ctrl-C reaches
every process of its group, and each printed a `KeyboardInterrupt` traceback; the
serving process stops them as it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import multiprocessing
import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from typing import Any

from storage.cpu import CPU_THREADS
from storage.limits import PARSE_WORKER_MAX_RSS_BYTES

STOP_SLOTS = 256  # stoppable calls queued or running at once; more wait for a slot
# The fork server imports these once; its workers are forked with them (and with SIGINT
# ignored from birth: storage/parse_worker_signals.py).
PRELOAD = ["storage.parse_worker_signals", "parsing.svg"]
WORKER_NICENESS = 10  # below the serving process's priority (0), above a batch job's (19)
SPOOL_BYTES = 1 << 20  # an argument or result this large crosses by a file, not pickled
SPOOL_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None  # memory, where there is one
SPOOL_PREFIX = "floorgate-spool-"
STALE_SPOOL_SECONDS = 3600  # no call waits this long for its worker (the time budget)
RETIRE = STOP_SLOTS  # the flag after the stop slots: a worker stayed over its memory bound
# A task that left its worker this much larger than after the last give-back is followed
# by one (a collection and a trim: 35-55 ms of CPU after an 8 MB parse, before its answer;
# a small parse grows its worker by less and pays nothing).
GIVE_BACK_BYTES = 16 * 1024 * 1024

_flags: Any = None  # in a worker: the shared stop flags
_worker: dict[str, Any] = {}  # in a worker: its memory bound, its trim, its settled size
_lock = threading.Lock()
_warm_lock = threading.Lock()  # one thread starts the workers; others wait for them
_state: dict[str, Any] = {}  # the pool, its flags and free slots, made on first use
# The current request's large text and its UTF-8 bytes, while not yet sent (`known_utf8`).
_utf8: ContextVar[list[tuple[str, bytes | bytearray]] | None] = ContextVar(
    "floorgate_utf8", default=None
)


class SlotStop:
    """The `parsing.errors.Stop` of a call in a worker: its slot of the shared flags."""

    def __init__(self, slot: int) -> None:
        self.slot = slot

    def is_set(self) -> bool:
        return bool(_flags[self.slot])


class Spooled:
    """An argument written to a private file, read back (and removed) by the worker.

    Pickling 8 MB of text held the interpreter for 8-10 ms in the pool's feeder thread,
    and so the event loop (tests/e2e/test_attack_latency.py, attack 2); a file write
    releases it, so only the encoding of text holds it (4 ms), and bytes not at all."""

    def __init__(self, path: str, text: bool) -> None:
        self.path = path
        self.text = text

    def load(self) -> str | bytes:
        try:
            with open(self.path, "rb") as file:
                data = file.read()
        finally:
            self.remove()
        return data.decode("utf-8", "surrogatepass") if self.text else data

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def _large(value: Any) -> bool:
    """Text or bytes that cross to a worker by a file."""
    return isinstance(value, str | bytes | bytearray) and len(value) >= SPOOL_BYTES


def known_utf8(text: str, data: bytes | bytearray) -> None:
    """`data` is `text` in UTF-8 (a request body just decoded): a worker called with
    `text` in this request gets these bytes, not an encoding of it made again (4 ms
    for 8 MB, holding the interpreter). They are let go once sent. Small texts cross
    inside the pickle: nothing is kept for them."""
    if _large(data):
        _utf8.set([(text, data)])


def _spooled(value: str | bytes | bytearray, known: list[Any]) -> Spooled | None:
    """`value` in a new file only its owner reads; None when it cannot be written (no
    room, no folder): the value is then pickled as any other."""
    text = isinstance(value, str)
    if not isinstance(value, str):  # not text
        data = value
    elif known and known[0][0] is value:
        data = known.pop()[1]
    else:
        data = value.encode("utf-8", "surrogatepass")
    try:
        handle, path = tempfile.mkstemp(prefix=SPOOL_PREFIX, dir=SPOOL_DIR)
    except OSError:
        return None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
    except OSError:
        Spooled(path, text).remove()
        return None
    return Spooled(path, text)


def _spool(args: tuple[Any, ...], known: list[Any]) -> tuple[Any, ...]:
    """`args` with each large text or bytes replaced by its `Spooled` file."""
    return tuple((_spooled(arg, known) or arg) if _large(arg) else arg for arg in args)


def _remove_spooled(args: tuple[Any, ...]) -> None:
    """What the worker did not read (the call never ran) is removed by the caller."""
    for arg in args:
        if isinstance(arg, Spooled):
            arg.remove()


def remove_stale_spooled() -> int:
    """Remove spool files older than STALE_SPOOL_SECONDS: what a process killed between
    writing one and its worker reading it left behind (in `/dev/shm` they hold memory
    until a reboot). Files of other users are not ours to remove. How many went."""
    folder = SPOOL_DIR or tempfile.gettempdir()
    cutoff = time.time() - STALE_SPOOL_SECONDS
    removed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.name.startswith(SPOOL_PREFIX):
                continue
            with contextlib.suppress(OSError):
                found = entry.stat()
                if found.st_mtime < cutoff and found.st_uid == os.getuid():
                    os.unlink(entry.path)
                    removed += 1
    return removed


async def _spool_off_loop(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`_spool` in a thread; a caller cancelled meanwhile leaves no file behind."""
    known = _utf8.get() or []
    spooling = asyncio.ensure_future(asyncio.to_thread(_spool, args, known))
    try:
        return await asyncio.shield(spooling)
    except asyncio.CancelledError:

        def remove_unread(done: asyncio.Future[tuple[Any, ...]]) -> None:
            if not done.cancelled() and not done.exception():
                _remove_spooled(done.result())

        spooling.add_done_callback(remove_unread)
        raise


def _adopt(flags: Any, max_rss: int) -> None:
    """A worker's initializer: keep the shared flags, yield the cores to the serving
    process whenever it has work (requests first, parses in the gaps), and learn how to
    give memory back (SIGINT is ignored from the worker's birth: PRELOAD)."""
    global _flags
    _flags = flags
    with contextlib.suppress(OSError, AttributeError):  # not everywhere
        os.nice(WORKER_NICENESS)
    _worker.update(max_rss=max_rss, trim=_malloc_trim(), settled=_resident())


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None elsewhere (musl, macOS): there the bound on a
    worker's size is what gives its memory back."""
    import ctypes  # a worker's import only

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the symbols the interpreter sees
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    return trim


def _resident() -> int:
    """This process's resident memory in bytes; where /proc is missing, its peak."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource  # a worker's import only

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _give_back() -> None:
    """After a task that grew the worker: free what cycles hold, return the C heap's free
    pages, and set the retire flag if the worker is still over its bound."""
    if "settled" not in _worker or _resident() - _worker["settled"] < GIVE_BACK_BYTES:
        return
    gc.collect()
    if _worker["trim"]:
        _worker["trim"](0)
    _worker["settled"] = _resident()
    if _worker["settled"] > _worker["max_rss"]:
        _flags[RETIRE] = 1


def _call(target: str, slot: int | None, *args: Any) -> Any:
    """In a worker: `_outcome`, then memory given back. An error's traceback (which the
    pool formats, then drops) has its frames cleared first: they hold the input."""
    try:
        return _outcome(target, slot, args)
    except BaseException as error:
        traceback.clear_frames(error.__traceback__)
        raise
    finally:
        _give_back()


def _outcome(target: str, slot: int | None, args: tuple[Any, ...]) -> Any:
    """The function named `module:name`, imported here (the serving process never imports
    the parser), called with its stop flag when it has a slot. A large result goes back
    by a file, as large arguments come: pickled, it grew a buffer in steps through the
    C heap just given back (60 MB of a worker's after a 14 MB document), and the serving
    process read it in 64 KB pieces."""
    module, _, name = target.partition(":")
    function = getattr(importlib.import_module(module), name)
    loaded = [arg.load() if isinstance(arg, Spooled) else arg for arg in args]
    result = function(*loaded) if slot is None else function(*loaded, stop=SlotStop(slot))
    return (_spooled(result, []) or result) if _large(result) else result


def _pool() -> tuple[ProcessPoolExecutor, Any, list[int]]:
    with _lock:
        if "pool" not in _state:
            context = multiprocessing.get_context("forkserver")
            # Workers fork from a server that imported the parser once: a new worker
            # answers at once instead of importing lxml and svgelements first.
            context.set_forkserver_preload(PRELOAD)
            flags = context.RawArray("b", STOP_SLOTS + 1)  # and RETIRE
            _state["flags"] = flags
            _state["free"] = list(range(STOP_SLOTS))
            _state["pool"] = ProcessPoolExecutor(
                CPU_THREADS,
                mp_context=context,
                initializer=_adopt,
                initargs=(flags, PARSE_WORKER_MAX_RSS_BYTES),
            )
        return _state["pool"], _state["flags"], _state["free"]


def _warm() -> None:
    """Make the pool and start all its workers (a thread's work: the first start of the
    fork server imports the parser, 0.1-0.3 s, and a spawn waits for it). A pool's
    executor starts a worker at a submit that finds none idle, on the caller's thread:
    on the event loop that stalled every request of the process."""
    with _warm_lock:
        pool, _, _ = _pool()
        if _state.get("warm") is pool:
            return
        remove_stale_spooled()
        for started in [pool.submit(len, "") for _ in range(CPU_THREADS)]:
            started.result()
        _state["warm"] = pool


async def _warm_pool() -> tuple[ProcessPoolExecutor, Any, list[int]]:
    """The pool, its workers started off the event loop the first time."""
    pool = _state.get("pool")
    if pool is None or _state.get("warm") is not pool:
        await asyncio.to_thread(_warm)
    return _pool()


def _forget(pool: ProcessPoolExecutor) -> None:
    """A worker died (killed, out of memory): the next call makes a new pool."""
    with _lock:
        if _state.get("pool") is pool:
            _state.pop("pool")
            _state.pop("warm", None)
    pool.shutdown(wait=False, cancel_futures=True)


def _retire(pool: ProcessPoolExecutor) -> None:
    """A worker stayed over its memory bound: a new pool takes the next calls, its
    workers started at once in a thread (forked from the fork server, which has the
    parser); this one ends once the work it has is done."""
    with _lock:
        if _state.get("pool") is not pool:
            return
        _state.pop("pool")
        _state.pop("warm", None)
    pool.shutdown(wait=False)
    threading.Thread(target=_warm, name="floorgate-parse-workers", daemon=True).start()


async def run_isolated(target: str, *args: Any, stoppable: bool = False) -> Any:
    """The function `target` (`module:name`) called with `args` in a worker process; with
    `stoppable`, also `stop=<a Stop>`, set when the awaiting request is cancelled. Its
    arguments and result must pickle; large ones cross by a file. Raises BrokenProcessPool
    when a worker died (the pool is made anew)."""
    pool, flags, free = await _warm_pool()
    if any(_large(arg) for arg in args):
        args = await _spool_off_loop(args)
    slot: int | None = None
    if stoppable:
        while not free:  # every slot busy: wait, as the CPU pool's queue would
            await asyncio.sleep(0.01)
        slot = free.pop()
        flags[slot] = 0
    try:
        submitted: Future[Any] = pool.submit(_call, target, slot, *args)
    except BrokenProcessPool:
        _forget(pool)
        _remove_spooled(args)
        if slot is not None:
            free.append(slot)
        raise
    submitted.add_done_callback(lambda _: _remove_spooled(args))

    def retire_if_asked(_: Future[Any]) -> None:
        if flags[RETIRE]:
            _retire(pool)

    submitted.add_done_callback(retire_if_asked)
    if slot is not None:
        submitted.add_done_callback(lambda _: free.append(slot))  # once it really ended
    try:
        result = await asyncio.wrap_future(submitted)
    except asyncio.CancelledError:
        if slot is not None:
            flags[slot] = 1
        submitted.add_done_callback(_remove_result)
        raise
    except BrokenProcessPool:
        _forget(pool)
        raise
    if isinstance(result, Spooled):  # a thread reads it: the loop would wait 3-5 ms
        return await asyncio.to_thread(result.load)
    return result


def _remove_result(done: Future[Any]) -> None:
    """The file of a result no caller reads (it was cancelled) is removed."""
    if not done.cancelled() and done.exception() is None:
        _remove_spooled((done.result(),))
