"""What `/readyz` decides: whether this process can serve correctly now, answered within
READY_SECONDS whatever the database does (docs/deploy.md, "Readiness and drain").

Not ready (503, our error format, the reasons in its message) while:
- the process drains (`FLOORGATE_DRAIN_SECONDS` after SIGTERM, `rest.ops.stop_signals`),
  so a load balancer stops sending before the listener closes;
- the database does not answer a ping within READY_SECONDS (a probe that waited for the
  driver's own timeouts read nothing for 44 s with the database stopped);
- a change stream is down (the read cache's, or the live changes' once opened): the
  cache serves nothing then, and live data would wait;
- the switches of staged imports cannot be read (`storage.cache.switch_gate`): a switch
  known to be in progress that the process cannot follow or settle.

A database that refuses change streams for good (a standalone server, a hosted tier out
of streams) is not an outage: reads stay correct with the cache off, so the process is
ready, and says so (`change_streams`); its live routes answer 503 with the reason.
"""

from __future__ import annotations

import asyncio
import time

from pymongo.errors import PyMongoError

from storage.attributes.hub import EventHub
from storage.cache.background import retrieved
from storage.cache.switch_gate import FRESH_SECONDS
from storage.database import Store

# A readiness answer's bound: probes time out at 1 s by default (Kubernetes), and a
# database that answers slower than this is not one to send traffic through.
READY_SECONDS = 1.0
# Switches known in progress but not read for this long: the process cannot follow them.
SWITCHES_STALE_SECONDS = 2 * FRESH_SECONDS
DRAINING = "the server is stopping"
NO_DATABASE = "the database does not answer"


class Readiness:
    """The checks of one process; one ping at a time, shared by concurrent probes."""

    def __init__(self, store: Store, hub: EventHub) -> None:
        self.store = store
        self.hub = hub
        self.draining = False  # set on SIGTERM for the drain (`rest.app`)
        self._ping: asyncio.Future[bool] | None = None

    async def reasons(self) -> list[str]:
        """Why the process is not ready; empty when it is."""
        found = [DRAINING] if self.draining else []
        if not await self._database_answers():
            return [*found, NO_DATABASE]  # the streams and switches follow from that
        refused = self.store.streams.refused
        cache = self.store.cache
        if self.store.watching and not cache.live and refused is None:
            found.append(f"the read cache's change stream is {cache.stream}")
        if self.hub.failures and refused is None:  # reset when it opens again
            found.append("the live changes' stream is down")
        gate = self.store.switches
        if gate.known and time.monotonic() - gate.polled_at > SWITCHES_STALE_SECONDS:
            found.append("a switch of a staged import is in progress and cannot be read")
        return found

    def drain(self) -> None:
        """SIGTERM: not ready from now on, while everything else is still served."""
        self.draining = True

    def change_streams(self) -> str:
        """What `/readyz` says of change streams: `available`, or why they are not."""
        refused = self.store.streams.refused
        return "available" if refused is None else f"unavailable: {refused}"

    async def _database_answers(self) -> bool:
        """A ping within READY_SECONDS. The ping is not cancelled at the bound (pymongo's
        async API may swallow a cancellation and hold on): it ends by itself, and the
        next probe shares it while it runs."""
        ping = self._ping
        if ping is None or ping.done():
            ping = self._ping = asyncio.ensure_future(self._pinged())
            ping.add_done_callback(retrieved)
        done, _ = await asyncio.wait({ping}, timeout=READY_SECONDS)
        return bool(done) and ping.result()

    async def _pinged(self) -> bool:
        try:
            await self.store.client.admin.command("ping")
        except PyMongoError:  # unreachable, or refusing (a lost user, say): not ready
            return False
        return True
