"""Rows of docs/limits.md's first two tables: connections and the HTTP request, and who
asks and how often (the rate limits, and what a request without a key may send)."""

from __future__ import annotations

from resolvers.errors import ErrorCode
from rest.limits.rows import Limit, Section, answer, count, names, seconds, size, whole
from rest.limits.values import (
    BODY,
    BODY_TIME,
    BURST,
    CONNECTIONS,
    COST_PER_UNIT,
    DOCUMENT,
    DOCUMENT_PLUS_BODY,
    DRAIN,
    HEADER,
    HEADER_TIME,
    KEEPALIVE_TIME,
    KEYLESS_BODY,
    KEYLESS_BURST,
    KEYLESS_RATE,
    LINGER,
    LINGER_BUFFER,
    LINGERING,
    METHODS,
    NEW_BURST,
    NEW_PER_SECOND,
    QUERY_BODY,
    RATE,
    READY,
    REQUEST_TIME,
    SEND_TIME,
    SERVED_METHODS,
    SVG_BYTES,
    TARGET,
    WAIT,
    WAITING,
    WRITE_BODY,
    WRITTEN_PER_UNIT,
)

HTTP = Section("http")
CALLERS = Section("callers")
_CLOSED = "connection closed"

HTTP_ROWS: tuple[Limit, ...] = (
    Limit(
        HTTP,
        "Request target (path and query, as sent)",
        size(TARGET.value),
        TARGET.code,
        f"{answer(ErrorCode.URI_TOO_LONG, limit=whole(TARGET.value))}, {_CLOSED}",
        (TARGET,),
    ),
    Limit(
        HTTP,
        "Request head (request line and headers)",
        size(HEADER.value),
        HEADER.code,
        f"{answer(ErrorCode.HEADERS_TOO_LARGE, limit=whole(HEADER.value))}, {_CLOSED}",
        (HEADER,),
    ),
    Limit(
        HTTP,
        "Methods",
        METHODS,
        SERVED_METHODS,
        f"{answer(ErrorCode.METHOD_NOT_ALLOWED)} with `Allow`, {_CLOSED}",
    ),
    Limit(
        HTTP,
        "A head that is no HTTP, or `Content-Length` with `Transfer-Encoding`",
        "-",
        "-",
        f"{answer(ErrorCode.BAD_REQUEST)}, {_CLOSED}",
    ),
    Limit(
        HTTP,
        "New TLS connections from one client address, per worker (a connection kept alive "
        "is not new)",
        f"{count(NEW_BURST.value)} at once, then {count(NEW_PER_SECOND.value)} a second",
        f"{names(NEW_BURST, NEW_PER_SECOND)} (0: no pace; {WAIT.path})",
        "the connection waits for its turn before its TLS handshake, reading paused; one "
        f"that would wait more than {seconds(WAIT.value)} ({WAIT.code}), or past "
        f"{count(WAITING.value)} waiting in the worker ({WAITING.code}), is closed before a "
        "byte of TLS is read (counted in `/metrics` as "
        '`floorgate_rate_limited_total{limit="connection"}`). Two reconnection storms from '
        "one address (1 MB heads from 40 threads, keyless WebSockets opened again as soon "
        "as closed) held an honest GET's p95 at 3-4x idle, a fifth of the server in TLS "
        "handshakes; paced, within 2x",
        (NEW_BURST, NEW_PER_SECOND, WAIT, WAITING),
    ),
    Limit(
        HTTP,
        "TLS handshake plus request head",
        seconds(HEADER_TIME.value),
        HEADER_TIME.code,
        f"{_CLOSED}, no answer",
        (HEADER_TIME,),
    ),
    Limit(
        HTTP,
        "Idle keep-alive connection",
        seconds(KEEPALIVE_TIME.value),
        KEEPALIVE_TIME.code,
        _CLOSED,
        (KEEPALIVE_TIME,),
    ),
    Limit(
        HTTP,
        "Connections (and running requests) per worker: WebSocket upgrades included, an "
        "open WebSocket until it closes; not a connection lingering after a refusal (next "
        "lines)",
        count(CONNECTIONS.value),
        CONNECTIONS.code,
        f"{answer(ErrorCode.SERVICE_UNAVAILABLE)}, `Retry-After`, `Connection: close` (an "
        "upgrade: before the WebSocket handshake)",
        (CONNECTIONS,),
    ),
    Limit(
        HTTP,
        "Request body, any route",
        size(BODY.value),
        BODY.code,
        f"{answer(ErrorCode.PAYLOAD_TOO_LARGE)}, counted as it streams",
        (BODY,),
    ),
    Limit(
        HTTP,
        "Body of E21/E22",
        size(WRITE_BODY.value),
        WRITE_BODY.code,
        f"{answer(ErrorCode.PAYLOAD_TOO_LARGE)} before it is read (by `Content-Length`, "
        f"else as it streams); {_CLOSED}",
        (WRITE_BODY,),
    ),
    Limit(
        HTTP,
        "Body of E18 and `route`",
        size(QUERY_BODY.value),
        QUERY_BODY.code,
        "as above",
        (QUERY_BODY,),
    ),
    Limit(
        HTTP,
        "Body of E10 (SVG)",
        size(SVG_BYTES.value),
        SVG_BYTES.code,
        answer(ErrorCode.PAYLOAD_TOO_LARGE),
        (SVG_BYTES,),
    ),
    Limit(
        HTTP,
        "Pause while a body arrives",
        seconds(BODY_TIME.value),
        BODY_TIME.code,
        f"{answer(ErrorCode.REQUEST_TIMEOUT)}, {_CLOSED}",
        (BODY_TIME,),
    ),
    Limit(
        HTTP,
        "What a client still sends after an answer that refused its body or head (413, "
        "431, 414, 400, 405)",
        f"read and dropped at {size(DRAIN.value)}/s for the whole process, at most the body "
        f"limit ({size(BODY.value)}), at most {seconds(LINGER.value)}",
        f"{names(DRAIN, LINGER)} ({LINGER.path})",
        "a client that has sent everything reads its answer; one still sending at a bound is "
        "reset (as nginx's lingering close)",
        (DRAIN, BODY, LINGER),
    ),
    Limit(
        HTTP,
        f"Connections lingering so (each keeps at most {size(LINGER_BUFFER.value)} of what "
        "arrived, about 0.5 MiB with its TLS buffers)",
        f"{count(LINGERING.value)} per process",
        f"{names(LINGERING, LINGER_BUFFER)} ({LINGERING.path})",
        "the one lingering longest is reset to make room (so they hold about 16 MB at most, "
        "however long a flood of refused requests)",
        (LINGERING, LINGER_BUFFER),
    ),
    Limit(
        HTTP,
        "Pause while the client reads an answer",
        seconds(SEND_TIME.value),
        SEND_TIME.code,
        "connection dropped, the rest of the answer unsent",
        (SEND_TIME,),
    ),
    Limit(
        HTTP,
        "Time budget of a request, until its answer starts",
        seconds(REQUEST_TIME.value),
        REQUEST_TIME.code,
        f"{answer(ErrorCode.SERVICE_UNAVAILABLE)} with `Retry-After`; the work is cancelled "
        "(a route's or distance matrix's on the CPU pool stops at its next check: each "
        "Dijkstra, 4,096 steps, a batch of 65,536 bend probes; docs/routing.md)",
        (REQUEST_TIME,),
    ),
    Limit(
        HTTP,
        "`/readyz`'s answer, whatever the database does",
        f"within {seconds(READY.value)}",
        f"{READY.code} ({READY.path})",
        "503 `Not ready: the database does not answer` with `Retry-After` (also while the "
        "change stream is down, a switch cannot be read, or the server drains: "
        'docs/deploy.md, "Readiness and drain")',
        (READY,),
    ),
)

CALLERS_ROWS: tuple[Limit, ...] = (
    Limit(
        CALLERS,
        "Rate per key, shared by every worker and machine",
        f"{count(RATE.value)}/s, burst {count(BURST.value)} (a key may have its own: "
        "`floorgate keys create --rate-limit`)",
        names(RATE, BURST),
        f"{answer(ErrorCode.RATE_LIMITED)} with `Retry-After`; GraphQL `RATE_LIMITED` with "
        "`extensions.retryAfter`",
        (RATE, BURST),
    ),
    Limit(
        CALLERS,
        "What a request spends",
        f"1 unit per {count(COST_PER_UNIT.value)} of cost, at least 1, needed before it runs; "
        "then a REST page shorter than its `per-page`, or a `/graphql` answer holding fewer "
        "fields than priced, gives back what it did not cost",
        COST_PER_UNIT.code,
        "as above",
        (COST_PER_UNIT,),
    ),
    Limit(
        CALLERS,
        "What a bulk write (E21, E22 and their mutations) spends once it ran",
        f"1 unit per {count(WRITTEN_PER_UNIT.value)} documents it wrote (an assignment "
        "added, changed or removed, and its change's event): 40 for 100 new assignments, "
        "none for assigning what is assigned",
        WRITTEN_PER_UNIT.code,
        "never refused (the write is done): the key's next requests get 429 until its "
        "bucket has refilled",
        (WRITTEN_PER_UNIT,),
    ),
    Limit(
        CALLERS,
        "Requests without a valid key, per client address and process",
        f"{count(KEYLESS_RATE.value)}/s, burst {count(KEYLESS_BURST.value)} (a valid key from "
        "that address is never refused)",
        names(KEYLESS_RATE, KEYLESS_BURST),
        f"{answer(ErrorCode.RATE_LIMITED)} with `Retry-After`",
        (KEYLESS_RATE, KEYLESS_BURST),
    ),
    Limit(
        CALLERS,
        "Body or GET query string without a key (`/graphql`)",
        size(KEYLESS_BODY.value),
        KEYLESS_BODY.code,
        f"{answer(ErrorCode.UNAUTHENTICATED)}, unread",
        (KEYLESS_BODY,),
    ),
    Limit(
        CALLERS,
        "`/graphql` body with a key but without `service.admin`",
        f"the document limit + {size(QUERY_BODY.value)}",
        DOCUMENT_PLUS_BODY,
        f"{answer(ErrorCode.PAYLOAD_TOO_LARGE)}, unread, {_CLOSED}",
        (QUERY_BODY, DOCUMENT),
    ),
)
