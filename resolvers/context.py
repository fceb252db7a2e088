"""Per-request context shared by GraphQL over HTTP and the REST routes."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NoReturn

from resolvers.auth.keys import Caller, KeyCache, lookup_caller
from resolvers.auth.permissions import BEYOND_METRICS, reads_metrics_only
from resolvers.auth.ratelimit import RateLimiter, SharedLimiter
from resolvers.errors import ApiError, ErrorCode, database_away
from resolvers.language import Language
from resolvers.limits import (
    COST_PER_RATE_UNIT,
    SIDE_CACHE_SHARE,
    TILE_CACHE_BYTES,
    TILE_INDEX_BYTES,
    WRITTEN_DOCUMENTS_PER_RATE_UNIT,
)
from resolvers.wayfinding.versioned_cache import VersionedCache, waypoints_bytes
from storage.attributes.hub import EventHub
from storage.attributes.subscriptions import Slots
from storage.collections import RATE_BUDGETS
from storage.database import UNAVAILABLE_ERRORS, Store
from storage.settings import Settings

if TYPE_CHECKING:  # imported with the first route (5-6 ms of a start otherwise)
    from parsing.geo.map_frame import MapFrame
    from parsing.geo.tiles import EncodedTile, TileIndex
    from resolvers.loaders import Loaders
    from resolvers.search.index import SearchIndex
    from routing.closures import ClosedEdges
    from routing.maneuvers import Places
    from routing.matrix import LoadedGraph

MEMORY_BYTES = attrgetter("memory_bytes")  # what a loaded graph or a map's places hold
INDEX_BYTES = attrgetter("bytes")  # what an asset's search index holds
SIZE = attrgetter("size")  # what an asset's tile index, or an encoded tile, holds


RATE_LIMITED_KEY = "rate_limited_key"  # scope state: (key id, its limit) the answer shows
CHARGED_COST = "charged_cost"  # scope state: the operation's cost, once charged


@dataclass
class Services:
    """What lives for the whole process: the store, the settings, caches."""

    store: Store
    settings: Settings
    key_cache: KeyCache = field(default_factory=KeyCache)
    rate_limiter: SharedLimiter = field(init=False)  # per key, shared by every process
    address_limiter: RateLimiter = field(init=False)  # failed requests, per address
    # The REST address of a page of a GraphQL list (rest/v1/paging_urls.py graphql_page_url):
    # (root field, its arguments, page, per page) -> URL; set by the app, None elsewhere.
    page_url: Callable[[str, dict[str, Any], int, int], str | None] | None = None
    graph_cache: VersionedCache[LoadedGraph] = field(init=False)
    # Live changes of assignments: one change stream for every subscriber of the process.
    event_hub: EventHub = field(init=False)
    subscription_slots: Slots = field(init=False)  # open subscriptions per key, shared
    waypoint_cache: VersionedCache[dict[str, dict[str, Any]]] = field(init=False)
    place_cache: VersionedCache[Places] = field(init=False)  # landmarks of maneuvers
    frame_cache: VersionedCache[MapFrame] = field(init=False)  # WGS84 waypoints, GeoJSON
    search_indexes: VersionedCache[SearchIndex] = field(init=False)  # by asset
    tile_indexes: VersionedCache[TileIndex] = field(init=False)  # by asset (resolvers/tiles)
    tile_cache: VersionedCache[EncodedTile] = field(init=False)  # by asset and z/x/y
    closure_cache: VersionedCache[ClosedEdges] = field(init=False)  # wayfinding/closures.py

    def __post_init__(self) -> None:
        self.event_hub = EventHub(self.store)
        self.event_hub.key_listeners.append(self.key_cache.changed)  # first: before rechecks
        self.subscription_slots = Slots(self.store)
        graphs = self.settings.graph_cache_mb * 1024 * 1024
        self.graph_cache = VersionedCache(graphs, MEMORY_BYTES)
        self.waypoint_cache = VersionedCache(graphs // SIDE_CACHE_SHARE, waypoints_bytes)
        self.place_cache = VersionedCache(graphs // SIDE_CACHE_SHARE, MEMORY_BYTES)
        self.frame_cache = VersionedCache(graphs // SIDE_CACHE_SHARE, MEMORY_BYTES)
        self.closure_cache = VersionedCache(graphs // SIDE_CACHE_SHARE, MEMORY_BYTES)
        indexes = self.settings.search_cache_mb * 1024 * 1024
        self.search_indexes = VersionedCache(indexes, INDEX_BYTES)
        self.tile_indexes = VersionedCache(TILE_INDEX_BYTES, SIZE)
        self.tile_cache = VersionedCache(TILE_CACHE_BYTES, SIZE)
        # One budget per key for every process (FLOORGATE_RATE_LIMIT_SHARE is obsolete).
        self.rate_limiter = SharedLimiter(
            self.store[RATE_BUDGETS],
            self.settings.rate_limit_per_second,
            self.settings.rate_limit_burst,
        )
        # `FLOORGATE_RATE_LIMIT_PER_SECOND=0` turns every rate limit off.
        per_address = self.settings.unauthenticated_rate_per_second
        self.address_limiter = RateLimiter(
            per_address if self.settings.rate_limit_per_second > 0 else 0,
            self.settings.unauthenticated_burst,
        )


class RequestContext:
    """The raw credentials of one request and, once looked up, its caller."""

    def __init__(
        self,
        services: Services,
        api_key: str | None,
        flags: frozenset[str],
        request_id: str = "",
        client: str = "",
        state: dict[str, Any] | None = None,
    ) -> None:
        self.services = services
        self.store = services.store
        self.settings = services.settings
        self.api_key = api_key or None
        self.flags = flags
        self.connection_params: object = None  # a WebSocket's `connection_init` payload
        self.over_websocket = False  # subscriptions only, there (schema.execution.guard)
        self.request_id = request_id
        self.client = client  # the client's address, for limits on unauthenticated traffic
        # The language the answer is in (issue 51), set by the face; None: names as stored.
        self.language: Language | None = None
        self.state = state  # the request's scope state: `RATE_LIMITED_KEY` goes there
        self.reads_metrics = False  # the /metrics route: a metrics-only key is served
        self._caller: asyncio.Future[Caller] | None = None
        self._address_charged = False
        self._units = 0  # rate-limit units charged to the key so far
        self._charged = False  # an operation's cost was charged (the lookup's unit is spent)
        self._after = 0  # cost of work the operation did beyond its price, not charged yet
        self._loaders: Loaders | None = None
        self._stored_pages = 0  # direct plans' page roots reading now (`reading_stored`)
        self._releases: list[Callable[[], None]] | None = []  # None: released

    def renewed(self) -> RequestContext:
        """A context of the same credentials and client for one more request on the same
        connection (each operation of a WebSocket): its key is looked up and charged
        afresh, as each HTTP request's is."""
        context = RequestContext(
            self.services, self.api_key, self.flags, self.request_id, self.client, {}
        )
        context.over_websocket = self.over_websocket
        return context

    def on_release(self, release: Callable[[], None]) -> None:
        """Call `release` when the request ends (`release`), or now if it has: what a
        request holds beyond its answer (a subscription's slot) is given back however it
        ends, before or after its stream started."""
        if self._releases is None:
            release()
        else:
            self._releases.append(release)

    @property
    def released(self) -> bool:
        """The request is over (`release`): whatever still runs for it stops."""
        return self._releases is None

    def release(self) -> None:
        """The request is over: give back what it holds (once; later holds are given
        back as they are taken)."""
        releases, self._releases = self._releases or [], None
        for release in releases:
            release()

    @property
    def cost(self) -> int | None:
        """The operation's cost, once charged (kept in the request's state, where
        /metrics reads it too)."""
        return None if self.state is None else self.state.get(CHARGED_COST)

    @property
    def stored_ids(self) -> bool:
        """Pages are read with their items as stored (`_id` kept: `find_page`), for a
        direct plan's completer that renames each item as it builds it."""
        return self._stored_pages > 0

    @contextlib.contextmanager
    def reading_stored(self) -> Iterator[None]:
        """While a direct plan's page root runs its resolver (root fields run at once: a
        count, so one that ends does not end another's)."""
        self._stored_pages += 1
        try:
            yield
        finally:
            self._stored_pages -= 1

    @property
    def loaders(self) -> Loaders:
        """DataLoaders live per request (made on first use), so batching never mixes callers."""
        if self._loaders is None:
            # With the first nested field: strawberry's DataLoader is not imported before
            # a GraphQL operation runs (a REST route planned ahead answers without it).
            from resolvers.loaders import Loaders

            self._loaders = Loaders(self.store)
        return self._loaders

    async def caller(self) -> Caller:
        """The authenticated caller: 401 without a key, 403 for an unknown or disabled one
        (429 instead once the client's address has sent too many of those)."""
        found = self._caller
        if found is not None:
            return await found
        # Looked up here, not in a task of its own (a task and the loop turn it waits for
        # were a tenth of an uncached read's own CPU); root fields asking meanwhile share it.
        found = self._caller = asyncio.get_running_loop().create_future()
        try:
            caller = await self._lookup(self.api_key)
        except asyncio.CancelledError:
            found.cancel()
            self._caller = None
            raise
        except BaseException as error:
            found.set_exception(error)
            found.exception()  # retrieved: the later askers raise it, nobody logs it as lost
            raise
        found.set_result(caller)
        return caller

    async def _lookup(self, secret: str | None) -> Caller:
        """Look the key up once per request and spend one token of its rate limit."""
        if secret is None:
            self._refuse(ErrorCode.UNAUTHENTICATED)
        # An address out of tokens for failures gets no lookup for a key that is not
        # among the enabled keys (refused below, 429), but a valid key is always served.
        suspect = self.services.address_limiter.would_refuse(self.client) is not None
        try:
            caller = await lookup_caller(self.store, secret, self.services.key_cache, suspect)
        except UNAVAILABLE_ERRORS as error:
            raise database_away(error, self.settings.retry_after_seconds) from error
        if caller is None:
            self._refuse(ErrorCode.INVALID_KEY)
        if reads_metrics_only(caller.permissions) and not self.reads_metrics:
            raise ApiError(ErrorCode.FORBIDDEN, permission=BEYOND_METRICS)
        if self.state is not None:  # the answer then carries the key's RateLimit-* headers
            self.state[RATE_LIMITED_KEY] = (caller.key_id, caller.limit)
        wait = await self.services.rate_limiter.take(caller.key_id, limit=caller.limit)
        if wait is not None:
            raise ApiError(ErrorCode.RATE_LIMITED, retry_after=wait)
        self._units = 1
        return caller

    def _refuse(self, code: ErrorCode) -> NoReturn:
        """401/403 for a missing or invalid key, limited per client address (429)."""
        self.spend_address_token()
        raise ApiError(code)

    def spend_address_token(self) -> None:
        """One token of the client address's limit on requests without a valid key (once
        per request; keyless GraphQL introspection spends it too): 429 when none is left."""
        if self._address_charged:
            return
        self._address_charged = True
        wait = self.services.address_limiter.take(self.client)
        if wait is not None:
            raise ApiError(ErrorCode.RATE_LIMITED, retry_after=wait)

    async def charge(self, cost: int) -> None:
        """Spend the rest of an operation's rate-limit units: one per `COST_PER_RATE_UNIT`
        of its cost, at least one, of which the key's lookup already spent one."""
        caller = await self.caller()
        if self.state is not None:
            self.state[CHARGED_COST] = cost
        extra = units_of(cost) - (0 if self._charged else 1)  # each operation of a batch pays
        self._charged = True
        if extra > 0:
            wait = await self.services.rate_limiter.take(caller.key_id, extra, caller.limit)
            if wait is not None:
                raise ApiError(ErrorCode.RATE_LIMITED, retry_after=wait)
            self._units += extra

    async def spend(self, units: int, owed: float = 0) -> None:
        """Spend `units` of the caller's rate limit for work before an operation is priced
        (validating a new document, `schema.execution.guard`): the key's, else its
        address's (a request without a key), at most a full bucket less the request's own
        unit. Refused (429) when the bucket is short, and
        then `owed` is spent whatever the bucket holds (work already done: the parse), so
        the next requests wait. Not part of the operation's charge: never given back."""
        # At most what a full bucket holds beside the request's own unit, so that any
        # document within the token limit can be validated after a pause.
        if self.api_key is None:
            limiter = self.services.address_limiter
            wait = limiter.take(self.client, min(units, limiter.burst - 1))
            if wait is not None:
                limiter.owe(self.client, owed)
        else:
            caller = await self.caller()
            shared = self.services.rate_limiter
            burst = caller.limit[1] if caller.limit else shared.burst
            wait = await shared.take(caller.key_id, min(units, burst - 1), caller.limit)
            if wait is not None:
                await shared.owe(caller.key_id, owed, caller.limit)
        if wait is not None:
            raise ApiError(ErrorCode.RATE_LIMITED, retry_after=wait)

    @property
    def charged_units(self) -> int:
        """Rate-limit units charged so far (the key's lookup is one): what `settle` may
        give back down to one."""
        return self._units

    async def settle(self, cost: int) -> None:
        """The answer of the one operation charged cost less than charged (a page shorter
        than asked for): give the difference back, so a key pays for what it got. Before
        the answer leaves, so its `RateLimit-*` headers count it."""
        if not self._units:
            return
        caller = await self.caller()
        if self.state is not None:
            self.state[CHARGED_COST] = cost
        units = units_of(cost)
        if units < self._units:
            self.services.rate_limiter.give_back(caller.key_id, self._units - units, caller.limit)
            self._units = units

    def worked(self, cost: int) -> None:
        """The operation did work its price could not know before it ran (a search that
        only a failure needs, to say what stands in a route's way): charged after it."""
        self._after += cost

    def wrote(self, documents: int) -> None:
        """The operation wrote `documents` (a bulk write: known only once it ran)."""
        self.worked(documents * COST_PER_RATE_UNIT // WRITTEN_DOCUMENTS_PER_RATE_UNIT)

    async def charge_after(self) -> None:
        """Spend what the operation did beyond its price, once it ran (`worked`, `wrote`):
        one unit per COST_PER_RATE_UNIT, fractions kept in the bucket, never refused (the
        work is done), so the key's next requests wait until its bucket has refilled.
        Not given back."""
        cost, self._after = self._after, 0
        units = cost / COST_PER_RATE_UNIT
        if units <= 0 or self._caller is None:
            return
        caller = await self.caller()
        await self.services.rate_limiter.owe(caller.key_id, units, caller.limit)


def units_of(cost: int) -> int:
    """Rate-limit units of a cost: one per `COST_PER_RATE_UNIT`, at least one."""
    return max(1, math.ceil(cost / COST_PER_RATE_UNIT))


def unavailable(settings: Settings) -> ApiError:
    return ApiError(ErrorCode.SERVICE_UNAVAILABLE, retry_after=settings.retry_after_seconds)
