"""Rows of docs/limits.md's table of live changes: subscriptions over WebSocket and event
streams, their sockets, messages, events and slots."""

from __future__ import annotations

from resolvers.errors import ErrorCode
from rest.limits.rows import (
    Limit,
    Section,
    count,
    duration,
    every,
    names,
    percent,
    said,
    seconds,
    size,
    whole,
)
from rest.limits.values import (
    CATCH_UP,
    CONNECTIONS,
    COST_PER_UNIT,
    DOCUMENT,
    DOCUMENT_PLUS_BODY,
    EVENT_RESULT,
    FAN_OUT_SHARE,
    FAN_OUT_WINDOW,
    GIVE_BACK_AFTER,
    GIVE_BACK_EVERY,
    GIVE_BACK_LINGERED,
    HEADER_TIME,
    KEY_EVENTS_BURST,
    KEY_EVENTS_PER_SECOND,
    KEY_MESSAGE_BURST,
    KEY_MESSAGES_PER_SECOND,
    KEYLESS_BURST,
    KEYLESS_RATE,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    OPERATION_ID,
    OUTBOX,
    QUERY_BODY,
    QUEUED,
    RETENTION,
    SLOT,
    SOCKETS,
    SUBSCRIPTIONS,
)

LIVE = Section("live")

LIVE_ROWS: tuple[Limit, ...] = (
    Limit(
        LIVE,
        "A WebSocket message (`connection_init`, a subscription's document and variables)",
        f"the document limit + {size(QUERY_BODY.value)}",
        DOCUMENT_PLUS_BODY,
        "connection closed by uvicorn (1009), unread",
        (QUERY_BODY, DOCUMENT),
    ),
    Limit(
        LIVE,
        "WebSocket subprotocol",
        '`graphql-transport-ws` only (docs/graphql.md, "Subscriptions")',
        "-",
        "an upgrade offering only the older `graphql-ws` is closed at once with 4406 "
        "`Subprotocol not acceptable`",
    ),
    Limit(
        LIVE,
        "WebSocket without `connection_init` (so without a key)",
        seconds(HEADER_TIME.value),
        HEADER_TIME.code,
        "closed with 4408 `Connection initialisation timeout`",
        (HEADER_TIME,),
    ),
    Limit(
        LIVE,
        "WebSocket upgrades without a key in their headers (a browser's: its key comes in "
        "`connection_init`), per client address",
        f"{count(KEYLESS_RATE.value)} a second, {count(KEYLESS_BURST.value)} at once (those "
        "of requests without a key)",
        names(KEYLESS_RATE, KEYLESS_BURST),
        f"accepted and closed at once with 4429 {said(ErrorCode.RATE_LIMITED)}",
        (KEYLESS_RATE, KEYLESS_BURST),
    ),
    Limit(
        LIVE,
        "WebSocket without a valid key (its upgrade's `API-Key` or its `connection_init`)",
        "-",
        "-",
        f"closed with 4403 and our message ({said(ErrorCode.INVALID_KEY)}, "
        f"{said(ErrorCode.UNAUTHENTICATED)}), no `connection_ack`",
    ),
    Limit(
        LIVE,
        "Open WebSockets of one key, over every worker and machine",
        count(SOCKETS.value),
        SOCKETS.code,
        f"closed with 4429 {said(ErrorCode.TOO_MANY_SOCKETS, limit=whole(SOCKETS.value))} "
        "instead of its `connection_ack`",
        (SOCKETS,),
    ),
    Limit(
        LIVE,
        "Messages a client sends on one WebSocket",
        f"{count(MESSAGE_BURST.value)} at once, then {count(MESSAGES_PER_SECOND.value)} a second",
        f"{names(MESSAGE_BURST, MESSAGES_PER_SECOND)} ({MESSAGE_BURST.path})",
        "each message past it waits for its turn, and the socket is not read meanwhile: the "
        "client's writes wait in the network's buffers (closing the socket instead, a "
        "churning client came back at once with a new burst)",
        (MESSAGE_BURST, MESSAGES_PER_SECOND),
    ),
    Limit(
        LIVE,
        "Messages of one key's WebSockets, together, in one process",
        f"{count(KEY_MESSAGE_BURST.value)} at once (or {SOCKETS.code}, if more: one for each "
        f"socket the key may open), then {count(KEY_MESSAGES_PER_SECOND.value)} a second",
        f"{names(KEY_MESSAGE_BURST, KEY_MESSAGES_PER_SECOND)} ({KEY_MESSAGE_BURST.path})",
        "as above, once the socket is acknowledged: a key's burst does not grow with the "
        "sockets it opens (four sockets churning 200 each took a keyed GET from 13 to 56 ms; "
        "a subscribe/complete pair costs the server about 10 ms of CPU and the database "
        "three writes), and a key that reconnects while past its burst finds it still spent",
        (KEY_MESSAGE_BURST, KEY_MESSAGES_PER_SECOND),
    ),
    Limit(
        LIVE,
        "A message that is not a JSON object of the protocol, a subscription's `id` over "
        f"{count(OPERATION_ID.value)} characters",
        count(OPERATION_ID.value),
        OPERATION_ID.code,
        "closed with 4400 and what is wrong",
        (OPERATION_ID,),
    ),
    Limit(
        LIVE,
        "A disabled or deleted key's WebSockets and event streams",
        "closed within 1 s, on every worker and machine (the change reaches each process "
        "through its change stream; nothing polls)",
        "-",
        f"a WebSocket: closed with 4403 {said(ErrorCode.INVALID_KEY)}; an event stream "
        "ends, its reconnect is 403",
    ),
    Limit(
        LIVE,
        "A key's permission or scope changed",
        "as soon as the change reaches the process",
        "-",
        "its subscriptions without `service.unit-attributes.read` end (`complete`; an event "
        "stream ends); a narrower scope applies to the next events; each `subscribe` looks "
        "the key up afresh (`FORBIDDEN`)",
    ),
    Limit(
        LIVE,
        "A query or mutation over the WebSocket",
        "-",
        "-",
        "an `error` (`SUBSCRIPTIONS_ONLY`): HTTP bounds its time",
    ),
    Limit(
        LIVE,
        "A subscription over HTTP (GET or POST /graphql)",
        "-",
        "-",
        "its one error, before anything runs: `NO_SUBSCRIPTIONS_OVER_HTTP` "
        f"{said(ErrorCode.NO_SUBSCRIPTIONS_OVER_HTTP)}",
    ),
    Limit(
        LIVE,
        'A subscription\'s document over a limit of "GraphQL operations" below, or invalid',
        "-",
        "-",
        "an `error` whose payload is the errors HTTP answers for it (message, "
        "`extensions.code`, e.g. `BAD_USER_INPUT`, `DOCUMENT_TOO_LARGE`); nothing runs, the "
        "socket stays open",
    ),
    Limit(
        LIVE,
        "Events a subscriber may lag behind",
        count(QUEUED.value),
        f"{QUEUED.code} ({QUEUED.path})",
        "its stream ends (SSE: the connection closes; the client resumes with "
        "`Last-Event-ID`); on a WebSocket every subscription ends and the socket closes "
        f"with 1013 {said(ErrorCode.SOCKET_BEHIND, limit=whole(QUEUED.value))}; nobody else "
        "waits for it",
        (QUEUED,),
    ),
    Limit(
        LIVE,
        "Messages waiting to be sent on one WebSocket",
        count(OUTBOX.value),
        OUTBOX.code,
        "its subscriptions wait for the client (and fall behind: above)",
        (OUTBOX,),
    ),
    Limit(
        LIVE,
        "Event-loop time for passing changes on (to WebSockets, and to every subscriber in "
        "the hub)",
        f"{percent(FAN_OUT_SHARE.value)} of every {seconds(FAN_OUT_WINDOW.value)}, per process",
        f"{names(FAN_OUT_SHARE, FAN_OUT_WINDOW)} ({FAN_OUT_SHARE.path})",
        "the fan-out pauses until the window ends, requests go first; its subscribers fall "
        f"behind (and past {count(QUEUED.value)} changes: above)",
        (FAN_OUT_SHARE, FAN_OUT_WINDOW, QUEUED),
    ),
    Limit(
        LIVE,
        "Events passed to the subscriptions of one key, together, live or replayed from a "
        "cursor (WebSocket and event streams), per process",
        f"{count(KEY_EVENTS_BURST.value)} at once, then {count(KEY_EVENTS_PER_SECOND.value)} "
        "a second",
        f"{names(KEY_EVENTS_BURST, KEY_EVENTS_PER_SECOND)} ({KEY_EVENTS_BURST.path})",
        "the key's subscriptions wait for their turns and fall behind (and past "
        f"{count(QUEUED.value)} changes: above); other keys' subscriptions are not slowed: a "
        "key that subscribes 100 times to a busy group amplifies each change 100 times, and "
        "took the whole fan-out from everyone else; 20 event streams of one key replaying "
        "from cursor 0, unpaced, took the whole event loop (p95 16.6 -> 44.0 ms; paced, "
        "14.8 -> 18.0)",
        (KEY_EVENTS_BURST, KEY_EVENTS_PER_SECOND, QUEUED),
    ),
    Limit(
        LIVE,
        "Events kept for resuming",
        f"{duration(RETENTION.value)} (at least {duration(RETENTION.at_least or 0)})",
        RETENTION.code,
        "a cursor whose next event is gone: 410 (`CURSOR_EXPIRED`); one past the last event: 422",
        (RETENTION,),
    ),
    Limit(
        LIVE,
        "A replay from a cursor (what the log holds after it)",
        f"read {count(CATCH_UP.value)} event numbers at a time",
        f"{CATCH_UP.code} ({CATCH_UP.path})",
        "each read is charged to the key like a page of the events it returned: their "
        "number times the subscription's cost, one rate-limit unit per "
        f"{count(COST_PER_UNIT.value)} of it, at least one; a key out of tokens waits, its "
        "replay paused; its events then take their key's turns, as live ones do (the row "
        "above)",
        (CATCH_UP, COST_PER_UNIT),
    ),
    Limit(
        LIVE,
        "Open subscriptions of one key, over every worker and machine (WebSocket and event "
        "streams together)",
        count(SUBSCRIPTIONS.value),
        SUBSCRIPTIONS.code,
        "429 JSON before an event stream starts; an `error` (`TOO_MANY_SUBSCRIPTIONS`) for a "
        "subscribe over WebSocket",
        (SUBSCRIPTIONS,),
    ),
    Limit(
        LIVE,
        "A slot (an open subscription, an acknowledged WebSocket)",
        "freed when its subscription completes or ends, or its socket closes, whatever the order",
        "-",
        "a process that died (or a delete that failed) holds it "
        f"{SLOT.code} ({seconds(SLOT.value)}, {SLOT.path}) more at most",
        (SLOT,),
    ),
    Limit(
        LIVE,
        "An event's result, shared by the subscribers of the same document, variables and scope",
        f"the latest, {size(EVENT_RESULT.value)} per process, keys included",
        EVENT_RESULT.code,
        "an older event is executed again for whoever asks",
        (EVENT_RESULT,),
    ),
    Limit(
        LIVE,
        "Memory of closed WebSockets and of refused connections",
        f"given back after {count(GIVE_BACK_AFTER.value)} closed sockets or "
        f"{count(GIVE_BACK_LINGERED.value)} ended lingering connections (a full collection, "
        f"then `malloc_trim`), and once more for those that close after it, at most "
        f"{every(GIVE_BACK_EVERY.value)}",
        f"{GIVE_BACK_AFTER.code} ({GIVE_BACK_AFTER.path}), {GIVE_BACK_LINGERED.code} "
        f"({GIVE_BACK_LINGERED.path})",
        "-",
        (GIVE_BACK_AFTER, GIVE_BACK_LINGERED, GIVE_BACK_EVERY),
    ),
    Limit(
        LIVE,
        "Connections, event streams among them",
        f"{count(CONNECTIONS.value)} per worker",
        CONNECTIONS.code,
        "503",
        (CONNECTIONS,),
    ),
)
