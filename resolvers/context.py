"""Per-request context shared by GraphQL over HTTP and the REST routes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from resolvers.errors import ApiError, ErrorCode
from resolvers.graph_cache import VersionedCache
from resolvers.keys import Caller, KeyCache, lookup_caller
from resolvers.loaders import Loaders
from resolvers.ratelimit import RateLimiter
from routing.matrix import LoadedGraph
from storage.database import UNAVAILABLE_ERRORS, Store
from storage.settings import Settings


@dataclass
class Services:
    """What lives for the whole process: the store, the settings, caches."""

    store: Store
    settings: Settings
    key_cache: KeyCache = field(default_factory=KeyCache)
    rate_limiter: RateLimiter = field(init=False)
    graph_cache: VersionedCache[LoadedGraph] = field(init=False)
    waypoint_cache: VersionedCache[dict[str, dict[str, Any]]] = field(init=False)

    def __post_init__(self) -> None:
        self.graph_cache = VersionedCache(self.settings.graph_cache_size)
        self.waypoint_cache = VersionedCache(self.settings.graph_cache_size)
        self.rate_limiter = RateLimiter(
            self.settings.rate_limit_per_second, self.settings.rate_limit_burst
        )


class RequestContext:
    """The raw credentials of one request and, once looked up, its caller."""

    def __init__(
        self, services: Services, api_key: str | None, flags: frozenset[str], request_id: str = ""
    ) -> None:
        self.services = services
        self.store = services.store
        self.settings = services.settings
        self.api_key = api_key or None
        self.flags = flags
        self.request_id = request_id
        self._caller: asyncio.Future[Caller | None] | None = None
        self._loaders: Loaders | None = None

    @property
    def loaders(self) -> Loaders:
        """DataLoaders live per request (made on first use), so batching never mixes callers."""
        if self._loaders is None:
            self._loaders = Loaders(self.store)
        return self._loaders

    async def caller(self) -> Caller:
        """The authenticated caller: 401 without a key, 403 for an unknown or disabled one."""
        if self.api_key is None:
            raise ApiError(ErrorCode.UNAUTHENTICATED)
        if self._caller is None:
            self._caller = asyncio.ensure_future(self._lookup(self.api_key))
        caller = await self._caller
        if caller is None:
            raise ApiError(ErrorCode.INVALID_KEY)
        return caller

    async def _lookup(self, secret: str) -> Caller | None:
        """Look the key up once per request and spend one token of its rate limit."""
        try:
            caller = await lookup_caller(self.store, secret, self.services.key_cache)
        except UNAVAILABLE_ERRORS as error:
            raise unavailable(self.settings) from error
        if caller is not None:
            wait = self.services.rate_limiter.take(caller.key_id)
            if wait is not None:
                raise ApiError(ErrorCode.RATE_LIMITED, retry_after=wait)
        return caller


def unavailable(settings: Settings) -> ApiError:
    return ApiError(ErrorCode.SERVICE_UNAVAILABLE, retry_after=settings.retry_after_seconds)
