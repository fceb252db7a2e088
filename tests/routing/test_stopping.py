"""Routing work ends soon after its `stop` event is set (routing/stopping.py, issue 45):
a request past its time budget sets it (storage.cpu `run_cpu(..., stoppable=True)`),
and the route or matrix computing for it on the CPU pool stops instead of holding a core
for seconds (or, before the bend probe was bounded, minutes) after the 503.

The walk here is a zig-zag of 50,000 vertices, 30 ft apart and at right angles: a route
along it is one leg of 50,000 turns (seconds of planning), and every waypoint joining it
walks its whole chain. The CPU a thread spends after `stop` is set is read from the
thread's own clock, so a loaded machine does not change it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from routing.costs import Costs
from routing.maneuvers import route_with_maneuvers
from routing.matrix import LoadedGraph, Point
from routing.model import BOTH, FOOT, WALK, WalkGraph
from routing.profile import Profile
from routing.stopping import Stopped

VERTICES = 50_000
STEP = 30.0
SETTLE_SECONDS = 0.3  # of CPU the work runs before its stop is set
AFTER_STOP_SECONDS = 0.5  # of CPU it may still run after (a check's interval, generously)


def zigzag(count: int) -> WalkGraph:
    xy = np.stack([np.arange(count) * STEP, np.where(np.arange(count) % 2, STEP, 0.0)], axis=1)
    u = np.arange(count - 1, dtype=np.int32)
    v = u + 1
    return WalkGraph(
        feet_per_unit=1.0,
        level_uids=("zig",),
        level_floors=("z1",),
        node_xy=xy,
        node_level=np.zeros(count, dtype=np.int32),
        edge_u=u,
        edge_v=v,
        edge_length=np.hypot(*(xy[v] - xy[u]).T),
        edge_kind=np.full(count - 1, WALK, dtype=np.uint8),
        edge_steps=np.zeros(count - 1, dtype=np.int32),
        edge_modes=np.full(count - 1, BOTH, dtype=np.uint8),
    )


@pytest.fixture(scope="module")
def loaded() -> LoadedGraph:
    return LoadedGraph(zigzag(VERTICES), Costs(), 10.0)


def cpu_after_stop(work: Callable[[threading.Event], Any]) -> tuple[BaseException | None, float]:
    """Run `work(stop)` in a thread, set `stop` once the thread has used SETTLE_SECONDS
    of CPU: what it raised, and the CPU it used from then to its end."""
    stop = threading.Event()
    raised: list[BaseException] = []
    ended: list[float] = []

    def run() -> None:
        try:
            work(stop)
        except BaseException as error:  # any: handed to the test
            raised.append(error)
        finally:
            ended.append(time.thread_time())  # the same clock, read by its own thread

    thread = threading.Thread(target=run)
    thread.start()
    assert thread.ident is not None
    clock = time.pthread_getcpuclockid(thread.ident)
    while thread.is_alive() and time.clock_gettime(clock) < SETTLE_SECONDS:
        time.sleep(0.005)
    assert thread.is_alive(), "the work ended before its stop was set: make it longer"
    at_stop = time.clock_gettime(clock)
    stop.set()
    thread.join()
    return (raised[0] if raised else None), ended[0] - at_stop


def test_a_route_ends_soon_after_its_stop_is_set(loaded):
    """The whole route takes seconds of CPU (about 4.5 s measured); it ends within
    AFTER_STOP_SECONDS of CPU once stopped, raising Stopped."""
    end = Point((VERTICES - 1) * STEP, STEP * ((VERTICES - 1) % 2), 0)

    def work(stop: threading.Event) -> Any:
        return route_with_maneuvers(
            loaded, Profile(FOOT), Point(0, 0, 0), end, None, frozenset(), stop
        )

    raised, after = cpu_after_stop(work)
    assert isinstance(raised, Stopped)
    assert after < AFTER_STOP_SECONDS


def test_a_matrix_ends_soon_after_its_stop_is_set(loaded):
    """1 x 50 waypoints along the zig-zag: each join walks its 50,000-node chain (about
    8 s of CPU in all); stopped, it ends within AFTER_STOP_SECONDS."""
    targets = [Point(STEP * k, 0, 0) for k in range(0, VERTICES, VERTICES // 50)]

    def work(stop: threading.Event) -> Any:
        return loaded.matrix(Profile(FOOT), [Point(0, 0, 0)], targets, stop)

    raised, after = cpu_after_stop(work)
    assert isinstance(raised, Stopped)
    assert after < AFTER_STOP_SECONDS


def test_an_unset_stop_changes_no_answer(loaded):
    """Given an event nobody sets, a route and a matrix answer as without one."""
    near = [Point(STEP * k, 0, 0) for k in (0, 10, 20)]
    unset = threading.Event()
    assert loaded.matrix(Profile(FOOT), near, near, unset) == loaded.matrix(
        Profile(FOOT), near, near
    )
    with_event = route_with_maneuvers(
        loaded, Profile(FOOT), near[0], near[2], None, frozenset(), unset
    )
    assert with_event == route_with_maneuvers(loaded, Profile(FOOT), near[0], near[2])
