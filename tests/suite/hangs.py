"""Where a hung run waited: a plugin of the suite (tests/conftest.py loads it).

A CI run of 2026-11-29 printed every test's result and then waited until CI's 5,400 s
limit ended it, its output saying nothing of where. Now a test that passes
pytest-timeout's limit ([tool.pytest] `timeout` in pyproject.toml; its setup and
teardown count, and the last test of a worker tears the session's fixtures down) fails
with each thread's stack and, here, each asyncio task's chain of awaits (the main
thread's stack of a hung coroutine only shows the event loop's `select`). Outside a
test, a watchdog (faulthandler's, a thread of its own) ends a process of the run, the
xdist controller included, that goes STALL_SECONDS without a test starting or reporting,
or does not exit within EXIT_SECONDS of its session's end (a worker, STALL_SECONDS: it
waits for its siblings): it prints every thread's stack and exits 1."""

from __future__ import annotations

import asyncio
import faulthandler
import gc
import signal
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

# Seconds a process of the run may go without a test starting or reporting (in the
# controller, a report from any worker): past pytest-timeout's limit, so that a test that
# hangs fails as one, and past the collection of every test.
STALL_SECONDS = 600.0
# Seconds from a session's end to its process's exit (the summary, atexit handlers,
# joining threads and worker processes) before the watchdog ends it.
EXIT_SECONDS = 120.0

# What the asyncio tasks awaited when the running test timed out, for its report.
AWAITS: list[str] = []


def awaits(task: asyncio.Task[Any]) -> str:
    """The task and the chain of coroutines it awaits, outermost first, a line each."""
    lines = [repr(task)]
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
        frame = frame or getattr(awaited, "gi_frame", None)
        if frame is not None:
            code = frame.f_code
            lines.append(f"  {code.co_filename}:{frame.f_lineno} in {code.co_name}")
        awaited = (
            getattr(awaited, "cr_await", None)
            or getattr(awaited, "ag_await", None)
            or getattr(awaited, "gi_yieldfrom", None)
        )
        if type(awaited).__name__ in {"async_generator_asend", "async_generator_athrow"}:
            # `await agen.__anext__()` (an async fixture's teardown): the step names no
            # generator of its own, but holds it.
            held = [held for held in gc.get_referents(awaited) if hasattr(held, "ag_frame")]
            awaited = held[0] if held else None
    return "\n".join(lines)


@pytest.hookimpl(hookwrapper=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> Iterator[None]:
    """pytest-timeout's SIGALRM handler, after the running loop's tasks are written down."""
    yield
    timed_out = signal.getsignal(signal.SIGALRM)
    if not callable(timed_out):
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        loop = asyncio._get_running_loop()  # the handler runs on the loop's thread
        if loop is not None:
            AWAITS.extend(awaits(task) for task in asyncio.all_tasks(loop))
        timed_out(signum, frame)

    signal.signal(signal.SIGALRM, handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and AWAITS:
        report.sections.append(("asyncio tasks at the timeout", "\n\n".join(AWAITS)))
    AWAITS.clear()


def watch(seconds: float) -> None:
    """Print every thread's stack and exit 1 unless watched again within `seconds`."""
    faulthandler.dump_traceback_later(seconds, exit=True, file=sys.__stderr__)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    watch(STALL_SECONDS)


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    watch(STALL_SECONDS)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    watch(STALL_SECONDS)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The process should exit soon (after the other hooks of the session's end: the
    xdist controller's ends its workers), but an xdist worker that ran out of tests
    waits for its siblings' last tests first (until the controller ends them all): it
    keeps STALL_SECONDS (a run of 2026-11-30 had a worker ended by EXIT_SECONDS while
    the other ran its last tests, 2 minutes and more of them)."""
    watch(STALL_SECONDS if hasattr(session.config, "workerinput") else EXIT_SECONDS)
