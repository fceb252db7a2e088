"""Compressed answers (docs/api.md, "Compression"): JSON, XML/SVG, GeoJSON and text
bodies over MIN_BYTES leave in br or gzip, as the client's Accept-Encoding weighs them,
for every route of the app; what a proxy in front does is in docs/deploy.md.

Pure ASGI, just inside `rest.middleware.Boundary` (so a failure here is answered and
logged like any other). Never compressed: event streams (they must leave event by
event), WebSockets, 204/206/304, a request with `Range`, an answer that already has a
Content-Encoding, and bodies under MIN_BYTES (unless the client refuses identity). A
HEAD gets the headers its GET would (Content-Encoding, the ETag), without a length.

A compressed answer is another representation, so its strong ETag gets the coding as a
suffix inside the quotes (`"<tag>-gzip"`, `"<tag>-br"`, as Apache does and RFC 9110,
8.8.3.3 shows): `If-None-Match` with that tag or the plain one revalidates to 304, and
the 304 names the tag the client sent. Bodies over COMPRESS_ON_LOOP_BYTES are compressed
on the CPU pool (`storage.cpu`), not on the event loop; a streamed body is compressed
chunk by chunk (memory: one chunk and the coder's window), each chunk flushed as it comes.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from typing import Literal

import brotli
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from resolvers.limits import ENCODED_CACHE_BYTES, KEEP_WHOLE_BYTES
from schema.execution.bounded import ByteLRU
from storage.cpu import run_cpu

Coding = Literal["br", "gzip"]
MIN_BYTES = 1024  # below this a body leaves as it is: the coding's framing eats the gain
# Above this a body (or one chunk of a stream) is compressed on the CPU pool: at gzip 5 /
# br 5 a 64 KiB JSON takes about 1-2 ms, a 616 KB parsed map 7 / 11 ms (docs/api.md,
# "Compression"). The same bound as JSON request bodies (resolvers.limits).
COMPRESS_ON_LOOP_BYTES = 64 * 1024
GZIP_LEVEL = 5  # as small as 6 on map JSON (within 0.3%), twice as fast
GZIP_WBITS = 31  # zlib's gzip framing (16 + a 32 KiB window)
BROTLI_QUALITY = 5  # 15% smaller than 4 on map JSON, 2x its time; 6 is no smaller
BROTLI_WINDOW = 20  # 1 MiB: a stream's coder holds at most this much of what it has seen
PREFERENCE: tuple[Coding, ...] = ("br", "gzip")  # on equal weight, the first
ALIASES = {"x-gzip": "gzip"}  # RFC 9110, 8.4.1.3
NEVER = frozenset({"text/event-stream"})
TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/yaml",
        "application/graphql",
        "application/x-ndjson",
        "application/vnd.mapbox-vector-tile",  # protobuf of repeated keys: a third of it
    }
)
NO_BODY_STATUSES = frozenset({204, 206, 304})
# Compressed bodies of cacheable answers (`Cache-Control` immutable or public, with an
# ETag: content-addressed /files, the viewer's and GraphiQL's files), by a digest of their
# path and ETag, and their coding: anyone holding such an address, key or not, could
# otherwise make the server compress a 6 MB document (~0.1 s of CPU) per request. (The
# path, because an ETag alone may repeat: Starlette's static files tag by time and size.)
ENTRY_OVERHEAD = 200  # bytes per entry beside its key and body (the tuple, the LRU's node)
# A streamed cacheable answer (a static file: GraphiQL's 3.5 MB bundle) is held whole up
# to KEEP_WHOLE_BYTES, compressed once and kept; a longer one streams, compressed as it comes.
ENCODED: ByteLRU[tuple[bytes, Coding], bytes] = ByteLRU(ENCODED_CACHE_BYTES)
# Cache keys whose body one answer of this process is holding whole to compress: others
# asking meanwhile stream theirs (compressed chunk by chunk), so that a burst of requests
# for a cold 3.5 MB file holds one copy of it, not one per request.
COMPRESSING: set[tuple[bytes, Coding]] = set()
SUFFIXED = re.compile(r'"([^"]*)-(gzip|br)"')
VARY = b"Accept-Encoding"


def compressible(content_type: str | None) -> bool:
    """JSON and XML (`+json`/`+xml` too: map JSON, GeoJSON, SVG), JavaScript, YAML,
    and text, but never an event stream."""
    if not content_type:
        return False
    essence = content_type.split(";")[0].strip().lower()
    if essence in NEVER:
        return False
    return essence in TYPES or essence.endswith(("+json", "+xml")) or essence.startswith("text/")


def negotiate(header: str | None) -> tuple[Coding | None, bool]:
    """The coding to answer with (None: identity) and whether the client refused identity.

    The weights are the client's (RFC 9110, 12.5.3): the highest wins, br on a tie; `*`
    weighs every coding it does not name. No header, or an empty one, is identity, as
    browsers and proxies expect. An entry whose weight does not parse is ignored."""
    if not header:
        return None, False
    weights: dict[str, float] = {}
    for item in header.split(","):
        name, _, params = item.partition(";")
        name = name.strip().lower()
        name = ALIASES.get(name, name)
        if not name:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = -1.0
        if 0.0 <= weight <= 1.0:
            weights[name] = max(weight, weights.get(name, 0.0))
    anything = weights.get("*")
    chosen: Coding | None = None
    best = 0.0
    for coding in PREFERENCE:
        weight = weights.get(coding, anything if anything is not None else 0.0)
        if weight > best:
            chosen, best = coding, weight
    identity = weights.get("identity", anything if anything is not None else 1.0)
    return chosen, identity == 0.0


def plain_tags(header: str) -> str:
    """`If-None-Match` as the routes know their tags: a coding's suffix taken off."""
    return SUFFIXED.sub(r'"\1"', header)


def suffixed(etag: bytes, coding: Coding) -> bytes:
    """The tag of the `coding` representation: `"<tag>-<coding>"` (weak stays weak)."""
    if not etag.endswith(b'"'):
        return etag
    return etag[:-1] + b"-" + coding.encode() + b'"'


def tags_of(header: str) -> list[str]:
    return [tag.strip().removeprefix("W/") for tag in header.split(",")]


class Encoder:
    """One body's coder: chunks in, compressed bytes out, flushed at each chunk so that
    a stream's parts leave as they come."""

    def __init__(self, coding: Coding) -> None:
        self.brotli = (
            brotli.Compressor(mode=brotli.MODE_TEXT, quality=BROTLI_QUALITY, lgwin=BROTLI_WINDOW)
            if coding == "br"
            else None
        )
        self.zlib = None if self.brotli else zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, GZIP_WBITS)

    def chunk(self, data: bytes, last: bool) -> bytes:
        if self.brotli is not None:
            # brotli has no type information: its coder returns bytes.
            out: bytes = self.brotli.process(data)
            end: bytes = self.brotli.finish() if last else self.brotli.flush()
            return out + end
        assert self.zlib is not None
        out = self.zlib.compress(data)
        return out + self.zlib.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)

    async def encode(self, data: bytes, last: bool) -> bytes:
        """`chunk`, on the CPU pool when `data` is large."""
        if len(data) > COMPRESS_ON_LOOP_BYTES:
            return await run_cpu(self.chunk, data, last)
        return self.chunk(data, last)


def compress(coding: Coding, data: bytes) -> bytes:
    """A whole body in `coding` (tests and measurements use it too)."""
    return Encoder(coding).chunk(data, last=True)


class Compression:
    """The middleware: negotiates per request, leaves everything it does not compress
    as it was (but for Vary)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        accept = if_none_match = None
        ranged = False
        lines = 0  # of If-None-Match
        for name, value in scope.get("headers", ()):
            if name == b"accept-encoding":
                text = value.decode("latin-1")
                accept = text if accept is None else f"{accept},{text}"
            elif name == b"if-none-match":
                lines += 1
                text = value.decode("latin-1")
                if_none_match = text if if_none_match is None else f"{if_none_match},{text}"
            elif name == b"range":
                ranged = True
        coding, identity_refused = negotiate(accept)
        if if_none_match is not None and (lines > 1 or SUFFIXED.search(if_none_match)):
            # The routes read one line (Starlette's `headers.get`): they get all tags in
            # one, without suffixes.
            headers = [
                (name, value) for name, value in scope["headers"] if name != b"if-none-match"
            ]
            headers.append((b"if-none-match", plain_tags(if_none_match).encode("latin-1")))
            scope = {**scope, "headers": headers}
        if coding is not None and scope.get("extensions", {}).get("http.response.pathsend"):
            extensions = {
                k: v for k, v in scope["extensions"].items() if k != "http.response.pathsend"
            }
            scope = {**scope, "extensions": extensions}
        path = scope.get("path", "")
        answer = Answer(
            send, scope["method"], path, coding, identity_refused, ranged, if_none_match
        )
        try:
            await self.app(scope, receive, answer.send)
        finally:
            answer.release_claim()


class Answer:
    """One answer on its way out: its start is held until the body shows whether (and
    how) it is compressed."""

    def __init__(
        self,
        send: Send,
        method: str,
        path: str,
        coding: Coding | None,
        identity_refused: bool,
        ranged: bool,
        if_none_match: str | None,
    ) -> None:
        self.downstream = send
        self.method = method
        self.path = path  # with the ETag, the key of a kept compressed body
        self.coding = coding
        self.min_bytes = 1 if identity_refused else MIN_BYTES
        self.ranged = ranged
        self.if_none_match = if_none_match
        self.start: Message | None = None  # held, while the body decides
        self.kept_as: tuple[bytes, Coding] | None = None  # a cacheable answer's cache key
        self.claimed: tuple[bytes, Coding] | None = None  # its place in COMPRESSING
        self.sent_kept = False  # a kept compressed body went out: the app's is dropped
        self.held = b""
        self.encoder: Encoder | None = None  # a stream being compressed

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if self.sent_kept:
            return
        if kind == "http.response.start":
            await self.started(message)
        elif kind == "http.response.body" and self.encoder is not None:
            last = not message.get("more_body", False)
            out = await self.encoder.encode(message.get("body", b""), last)
            await self.downstream({"type": kind, "body": out, "more_body": not last})
        elif kind == "http.response.body" and self.start is not None:
            await self.held_body(message)
        else:
            if self.start is not None:  # another kind of message: what was held goes first
                await self.release()
            await self.downstream(message)

    async def started(self, message: Message) -> None:
        status: int = message["status"]
        headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))
        values = {name.lower(): value for name, value in headers}
        if status == 304:
            if b"etag" in values:
                headers = with_vary(headers)
                headers = self.revalidated(headers, values[b"etag"])
            await self.downstream({**message, "headers": headers})
            return
        if not compressible(values.get(b"content-type", b"").decode("latin-1")):
            await self.downstream(message)
            return
        headers = with_vary(headers)
        length = values.get(b"content-length")
        small = length is not None and length.isdigit() and int(length) < self.min_bytes
        if (
            self.coding is None
            or status < 200
            or status in NO_BODY_STATUSES
            or self.ranged
            or b"content-encoding" in values
            or b"content-range" in values
            or small
        ):
            await self.downstream({**message, "headers": headers})
            return
        if self.method == "HEAD":  # the headers a GET would have, but the length
            await self.downstream({**message, "headers": self.encoded(headers, None)})
            return
        self.start = {**message, "headers": headers}
        etag = values.get(b"etag")
        caching = values.get(b"cache-control", b"")
        if status == 200 and etag and (b"immutable" in caching or b"public" in caching):
            digest = hashlib.sha256(self.path.encode("utf-8", "replace") + b"\0" + etag)
            self.kept_as = (digest.digest(), self.coding)
            kept = ENCODED.get(self.kept_as)
            if kept is not None:  # sent now; what the app still sends is dropped
                start, self.start = self.start, None
                await self.downstream({**start, "headers": self.encoded(headers, len(kept))})
                await self.downstream({"type": "http.response.body", "body": kept})
                self.sent_kept = True
            elif self.kept_as in COMPRESSING:
                self.kept_as = None  # another answer is compressing it: stream this one
            else:
                COMPRESSING.add(self.kept_as)
                self.claimed = self.kept_as

    async def held_body(self, message: Message) -> None:
        assert self.start is not None and self.coding is not None
        self.held += message.get("body", b"")
        more = message.get("more_body", False)
        if not more:
            body, self.held = self.held, b""
            if len(body) < self.min_bytes:
                await self.release(body)
                return
            out = await self.whole(body)
            start, self.start = self.start, None
            await self.downstream({**start, "headers": self.encoded(start["headers"], len(out))})
            await self.downstream({"type": "http.response.body", "body": out})
            return
        if len(self.held) < self.min_bytes:
            return  # a stream's first bytes: too few yet to decide
        if self.kept_as is not None and len(self.held) <= KEEP_WHOLE_BYTES:
            return  # a cacheable stream: held whole, to be compressed once
        self.kept_as = None
        self.encoder = Encoder(self.coding)
        start, self.start = self.start, None
        await self.downstream({**start, "headers": self.encoded(start["headers"], None)})
        body, self.held = self.held, b""
        out = await self.encoder.encode(body, last=False)
        await self.downstream({"type": "http.response.body", "body": out, "more_body": True})

    def release_claim(self) -> None:
        """The answer is done (or failed): another may compress its body again."""
        if self.claimed is not None:
            COMPRESSING.discard(self.claimed)
            self.claimed = None

    async def whole(self, body: bytes) -> bytes:
        """A whole body compressed, and kept when it is cacheable (immutable or public,
        with an ETag)."""
        assert self.coding is not None
        out = await Encoder(self.coding).encode(body, last=True)
        if self.kept_as is not None:
            ENCODED.put(self.kept_as, out, len(out) + len(self.kept_as[0]) + ENTRY_OVERHEAD)
        return out

    async def release(self, body: bytes | None = None) -> None:
        """The held start as it was, then the body: all of it (`body`, the answer's end),
        or what a stream had sent so far (more to come)."""
        start, self.start = self.start, None
        assert start is not None
        await self.downstream(start)
        if body is not None:
            await self.downstream({"type": "http.response.body", "body": body})
        elif self.held:
            held, self.held = self.held, b""
            await self.downstream({"type": "http.response.body", "body": held, "more_body": True})

    def encoded(
        self, headers: list[tuple[bytes, bytes]], length: int | None
    ) -> list[tuple[bytes, bytes]]:
        """The start's headers for the compressed body of `length` bytes (None: unknown,
        sent chunked)."""
        assert self.coding is not None
        out: list[tuple[bytes, bytes]] = []
        for name, value in headers:
            lower = name.lower()
            if lower == b"content-length":
                continue
            if lower == b"etag":
                value = suffixed(value, self.coding)
            out.append((name, value))
        out.append((b"content-encoding", self.coding.encode()))
        if length is not None:
            out.append((b"content-length", str(length).encode()))
        return out

    def revalidated(
        self, headers: list[tuple[bytes, bytes]], etag: bytes
    ) -> list[tuple[bytes, bytes]]:
        """A 304's ETag: the tag the client holds, which may carry a coding's suffix; of
        several, the one of the coding this request negotiated, then the plain one."""
        if self.if_none_match is None or not SUFFIXED.search(self.if_none_match):
            return headers
        sent = set(tags_of(self.if_none_match))
        first = [suffixed(etag, self.coding)] if self.coding else []
        others = [suffixed(etag, coding) for coding in PREFERENCE if coding != self.coding]
        for candidate in (*first, etag, *others):
            if candidate.decode("latin-1").removeprefix("W/") in sent:
                return [(n, candidate if n.lower() == b"etag" else v) for n, v in headers]
        return headers


def with_vary(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """`Vary: Accept-Encoding` added (to the answer's own Vary line when it has one)."""
    for index, (name, value) in enumerate(headers):
        if name.lower() == b"vary":
            names = {part.strip().lower() for part in value.split(b",")}
            if b"accept-encoding" in names or b"*" in names:
                return headers
            return [*headers[:index], (name, value + b", " + VARY), *headers[index + 1 :]]
    return [*headers, (b"vary", VARY)]
