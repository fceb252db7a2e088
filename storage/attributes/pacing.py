"""How fast live changes are passed on, per process: the share of the event loop the
whole fan-out may take (`FanOut`), and how many events one key's subscriptions may be
passed each second (`KeyShares`).

With a hundred subscriptions a write's changes are tens of thousands of messages, and an
honest GET waited behind them (issue 45, point 8: p95 7.6 s). The loop's share keeps
requests first, but one key could still take all of it from everyone else's
subscriptions, and the share is measured per step (the task switches around each step
are not counted: a 30% share was seen to take half the loop). So a key's subscriptions
together get a budget of events a second too: a key that subscribes a hundred times to a
busy group falls behind, and past `MAX_QUEUED` events its subscriptions are cut off (its
clients resume from their cursors, the replay charged to the key like pages). A replay
takes its key's turns too: 20 streams of a key resuming from cursor 0 at once, unpaced,
took the whole loop (issue 45, point 10)."""

from __future__ import annotations

import asyncio

# Live changes take at most this share of the event loop's time, per window (`FanOut`).
FAN_OUT_SHARE = 0.3
FAN_OUT_WINDOW = 0.02
# Events passed to the subscriptions of one key, live or replayed, together, per process
# (`KeyShares`).
KEY_EVENTS_PER_SECOND = 2_000
KEY_EVENTS_BURST = 2_000


class FanOut:
    """The share of the event loop's time that passing live changes on may take, for the
    whole process: at most FAN_OUT_SHARE of every FAN_OUT_WINDOW. Each step of it (a
    change offered to the subscribers, a change rendered and queued for a socket, a few
    messages sent) ends with `give_way`, which counts the step's time and, once the
    window's share is spent, pauses every step until the window ends: the requests
    queued meanwhile are served."""

    def __init__(self, share: float = FAN_OUT_SHARE, window: float = FAN_OUT_WINDOW) -> None:
        self.share, self.window = share, window
        self.began = 0.0  # the window's start (the loop's clock)
        self.spent = 0.0  # seconds of fan-out work in it
        self.paused = 0  # pauses so far (tests)

    async def give_way(self, step_began: float) -> float:
        """Count a step that began at `step_began`, let others run, and pause when the
        window's share is spent; the loop's time when the next step may begin."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now - self.began >= self.window:
            self.began, self.spent = now, 0.0
        self.spent += now - step_began
        if self.spent >= self.share * self.window:
            self.paused += 1
            await asyncio.sleep(self.began + self.window - now)
        else:
            await asyncio.sleep(0)
        return loop.time()


class Pace:
    """Turns at `rate` a second after a burst of `burst` (the generic cell rate algorithm:
    a token bucket kept as one time). Each `turn` is reserved when it is asked for, so
    whoever waits is served in order and sleeps once."""

    __slots__ = ("due", "interval", "tolerance")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.interval = 1 / rate
        self.tolerance = (burst - 1) / rate  # how far ahead of its rate it may be
        self.due = now  # when the next turn is due at the rate

    def wait(self, now: float) -> float:
        """The seconds until the next turn would come (0: now), without reserving it."""
        return _seconds(max(self.due, now) - self.tolerance - now)

    def turn(self, now: float) -> float:
        """Reserve the next turn: the seconds until it comes (0: now)."""
        due = max(self.due, now)
        self.due = due + self.interval
        return _seconds(due - self.tolerance - now)


def _seconds(wait: float) -> float:
    """A wait, with the rounding of summed intervals taken as none: the last turn of a
    burst of 200 at 20 a second came 2e-15 s late (summed onto the monotonic clock, a
    burst of 1,000 some 1e-9 s), a sleep and a `waited` of its own: a microsecond is none."""
    return wait if wait > 1e-6 else 0.0


class KeyShares:
    """A `Pace` per key with subscriptions in this process: each event passed to one of
    them (live or replayed) takes a turn of its key; a subscription waits for its turn
    (and its queue fills meanwhile). A key's pace is kept while it has subscriptions
    here: the table holds no more keys than there are subscriptions."""

    def __init__(
        self, rate: float = KEY_EVENTS_PER_SECOND, burst: float = KEY_EVENTS_BURST
    ) -> None:
        self.rate, self.burst = rate, burst
        self.paces: dict[str, Pace] = {}
        self.users: dict[str, int] = {}  # subscriptions of each key
        self.waits = 0  # events that waited for their turn so far (tests)

    def join(self, key_id: str) -> None:
        if key_id not in self.paces:
            now = asyncio.get_running_loop().time()
            self.paces[key_id] = Pace(self.rate, self.burst, now)
        self.users[key_id] = self.users.get(key_id, 0) + 1

    def leave(self, key_id: str) -> None:
        left = self.users.get(key_id, 0) - 1
        if left > 0:
            self.users[key_id] = left
        else:
            self.users.pop(key_id, None)
            self.paces.pop(key_id, None)

    async def take(self, key_id: str) -> None:
        """One event for a subscription of `key_id` (which `join`ed), in its turn."""
        wait = self.paces[key_id].turn(asyncio.get_running_loop().time())
        if wait > 0:
            self.waits += 1
            await asyncio.sleep(wait)


FAN_OUT = FanOut()
