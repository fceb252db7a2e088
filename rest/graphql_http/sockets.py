"""The acknowledged WebSockets of one process, by key (docs/graphql.md, "Subscriptions").

- A key's open sockets are capped over every worker and machine
  (FLOORGATE_MAX_SOCKETS_PER_KEY): each acknowledged socket holds a slot of kind `socket`
  in the database (`storage.attributes.subscriptions`), taken before its
  `connection_ack` and given back when it closes. One key without any permission once
  held 1,020 sockets open (issue 45).
- A key disabled or deleted closes its sockets with 4403 on every worker, as soon as the
  change reaches the process (the events hub's change stream passes on every change of
  a key, `storage.attributes.hub`): each socket of the key hears of it, its key is read
  again from the database (one read for all of them), and if it no longer holds, the
  sockets close. Nothing polls.

`MessageBudget` is a socket's own pace of what its client sends (WS_MESSAGES_PER_SECOND
after WS_MESSAGE_BURST): `subscribe` then `complete` in a loop is otherwise free for the
client and costs the server a slot's write and delete each. Past it the socket is read
more slowly, not closed: closed, a churning client came back at once with a new burst,
and what it still sent after the close was read and thrown away (issue 45, point 4).
Once acknowledged, each message also takes a turn of its key's pace in this process
(WS_KEY_MESSAGES_PER_SECOND after WS_KEY_MESSAGE_BURST, or one message for each socket
the key may open, FLOORGATE_MAX_SOCKETS_PER_KEY, if more), shared by the key's sockets:
a key's burst does not grow with the sockets it opens. A key's pace is kept while it
has sockets here and, after its last one closes, until its burst is whole again
(reconnecting brings no new burst).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from bson import ObjectId

from resolvers.auth.keys import Caller
from resolvers.context import Services
from resolvers.limits import (
    WS_KEY_MESSAGE_BURST,
    WS_KEY_MESSAGES_PER_SECOND,
    WS_MESSAGE_BURST,
    WS_MESSAGES_PER_SECOND,
)
from rest.ops.heap import GiveBack
from storage.attributes.pacing import Pace
from storage.attributes.subscriptions import SOCKET
from storage.database import UNAVAILABLE_ERRORS

log = logging.getLogger("floorgate.events")

# After this many sockets closed, the process gives the memory they held back to the
# system (`rest.ops.heap`).
GIVE_BACK_AFTER_SOCKETS = 256


class Socket(Protocol):
    """What the registry needs of a socket (`rest.graphql_http.ws_handlers`)."""

    def revoke(self) -> None:
        """Its key no longer holds: close it (4403)."""


class MessageBudget:
    """The pace of one socket's incoming messages: WS_MESSAGE_BURST at once, then
    WS_MESSAGES_PER_SECOND. A message past it waits for its turn before it is read,
    and so does everything the client sends after it: uvicorn reads a socket's next
    message only once the last one was taken, so the client's writes wait in the
    network's buffers and cost the server nothing."""

    def __init__(
        self, per_second: float = WS_MESSAGES_PER_SECOND, burst: int = WS_MESSAGE_BURST
    ) -> None:
        self.pace = Pace(per_second, burst, time.monotonic())
        self.shared: Pace | None = None  # its key's, once the socket is acknowledged
        self.waited = 0  # messages that waited for their turn (tests)

    async def take(self) -> None:
        """The next message's turn: the socket's, and its key's."""
        now = time.monotonic()
        wait = self.pace.turn(now)
        if self.shared is not None:
            wait = max(wait, self.shared.turn(now))
        if wait > 0:
            self.waited += 1
            await asyncio.sleep(wait)


class Sockets:
    """The process's acknowledged sockets by key id, each holding its slot."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.by_key: dict[str, set[Socket]] = {}
        self.paces: dict[str, Pace] = {}  # each key's messages (`MessageBudget.shared`)
        self._rechecks: set[asyncio.Task[None]] = set()
        self.heap = GiveBack(GIVE_BACK_AFTER_SOCKETS)
        services.event_hub.key_listeners.append(self.key_changed)

    async def admit(self, socket: Socket, caller: Caller, checked: int) -> ObjectId | None:
        """A slot for one more socket of `caller`'s key, and the socket registered to hear
        of the key's changes; None when the key holds its limit of open sockets. `checked`
        is the hub's count of key changes when the key was looked up: one since then
        (before this socket could hear of it) is checked now."""
        services = self.services
        slots = services.subscription_slots
        slot = await slots.take(caller.key_id, services.settings.max_sockets_per_key, SOCKET)
        if slot is None:
            return None
        self.by_key.setdefault(caller.key_id, set()).add(socket)
        hub = services.event_hub
        hub.start()  # the change stream that tells of the key's changes
        if hub.key_changes != checked:
            self.key_changed(caller.key_id)
        return slot

    def pace_of(self, key_id: str) -> Pace:
        """The pace of the messages of `key_id`'s sockets here: its burst lets every socket
        the key may open send a message at once (a reconnecting client's subscribes)."""
        pace = self.paces.get(key_id)
        if pace is None:
            burst = max(WS_KEY_MESSAGE_BURST, self.services.settings.max_sockets_per_key)
            pace = self.paces[key_id] = Pace(WS_KEY_MESSAGES_PER_SECOND, burst, time.monotonic())
        return pace

    def forget_pace(self, key_id: str) -> None:
        """The key has no socket here: its pace goes once it is within its burst again
        (a timer, no scan), so the table holds the keys with sockets and those that just
        left in debt; a socket of the key opened meanwhile keeps it."""
        pace = self.paces.get(key_id)
        if pace is None or key_id in self.by_key:
            return
        rest = pace.due - time.monotonic()
        if rest <= 0:
            del self.paces[key_id]
        else:
            asyncio.get_running_loop().call_later(rest, self.forget_pace, key_id)

    def leave(self, socket: Socket, caller: Caller, slot: ObjectId) -> None:
        """The socket closed: its slot is free, it hears of nothing more."""
        self.services.subscription_slots.free(slot)
        sockets = self.by_key.get(caller.key_id)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                del self.by_key[caller.key_id]
                self.forget_pace(caller.key_id)
        self.heap.count()

    def key_changed(self, key_id: str | None) -> None:
        """A key changed (None: any may have): its sockets ask whether it still holds."""
        for each in list(self.by_key) if key_id is None else [key_id]:
            if each in self.by_key:
                task = asyncio.get_running_loop().create_task(self._recheck(each))
                self._rechecks.add(task)
                task.add_done_callback(self._rechecks.discard)

    async def _recheck(self, key_id: str) -> None:
        services = self.services
        try:
            found = await services.key_cache.current(services.store, key_id)
        except UNAVAILABLE_ERRORS:  # asked again when the hub's stream is back
            return
        if found is None:
            for socket in list(self.by_key.get(key_id, ())):
                socket.revoke()
