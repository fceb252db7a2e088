"""The one ASGI application: REST /v1, GraphQL /graphql, files, health."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import logging
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import asdict
from functools import partial
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route, Router, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from resolvers.context import Services
from resolvers.errors import ApiError, ErrorCode
from rest.compression import Compression
from rest.graphql_http.endpoint import GraphQLEndpoint
from rest.graphql_http.graphiql import GRAPHIQL_STATIC_PREFIX, graphiql_routes
from rest.graphql_http.sdl import sdl_routes
from rest.middleware import BodyStalled, BodyTooLarge, Boundary
from rest.ops.caches import cache_figures, flat
from rest.ops.metrics import Metrics
from rest.ops.metrics_folder import MetricsFolder
from rest.ops.readiness import Readiness
from rest.ops.server import METRICS_FOLDER
from rest.ops.stop_signals import on_stop_signal
from rest.ops.tracing import traced
from rest.pages.files import files_endpoint
from rest.pages.landing import landing_routes
from rest.pages.maplibre_page import maplibre_page_routes
from rest.pages.reference_page import reference_page_routes
from rest.pages.viewer import viewer_routes
from rest.responses import error_of, error_response, json_response
from rest.v1.dispatch import RestApi
from rest.v1.openapi.serving import openapi_routes
from rest.v1.paging_urls import graphql_page_url
from rest.v1.routes import ROUTES
from schema.lazy import LazySchema
from storage.database import UNAVAILABLE_ERRORS, Store, connect
from storage.settings import Settings

log = logging.getLogger("floorgate")
ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
# The collector while serving: CPython's defaults, once start-up's objects are frozen
# (`settle_heap`). Larger young generations were measured too and only made each pause
# longer (20,000: 23 ms pauses, no less time in all; docs/performance-history.md,
# "The collector").
SERVING_GC_THRESHOLDS = (700, 10, 10)
# How long a thread of the CPU pool (a parse) may run Python before the event loop gets
# the interpreter back: 5 ms by default, which a request pays at each of its steps.
SWITCH_INTERVAL_SECONDS = 0.0005
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
INDEXES_AFTER_SECONDS = 0.5  # the first answers go first
LARGE_BLOCK = 128 * 1024  # glibc's default before it adapts


async def ensure_indexes_until_done(
    store: Store, after: float = INDEXES_AFTER_SECONDS, retry_seconds: float = 2.0
) -> None:
    """The indexes, ensured in the background a moment after start (the first answers do
    not wait for them; a write that needs them ensures them first, `Store.indexed`); if
    the database is away, keep trying."""
    await asyncio.sleep(after)
    while True:
        try:
            await store.indexed()
            return
        except UNAVAILABLE_ERRORS as error:
            log.warning("database unreachable, indexes pending: %s", error)
            await asyncio.sleep(retry_seconds)


def create_app(
    settings: Settings,
    store: Store | None = None,
    ensure_indexes: bool = True,
    metrics_folder: MetricsFolder | None = None,
) -> ASGIApp:
    """Build the app. Without a store, connect to `settings.mongodb_uri` (owned and closed
    here). With `ensure_indexes`, its start ensures the indexes in the background. With a
    `metrics_folder`, `/metrics` adds up the figures of the workers that share it."""
    owned = store is None
    if store is None:
        if not settings.mongodb_uri:
            raise RuntimeError("FLOORGATE_MONGODB_URI is not set")
        store = connect(settings.mongodb_uri, settings)
    services = Services(
        store=store, settings=settings, page_url=partial(graphql_page_url, settings.public_url)
    )
    schemas = LazySchema(settings)  # built off the loop when first needed (schema/lazy.py)
    rest = RestApi(services, schemas)
    graphql = GraphQLEndpoint(schemas, services, [route.document for route in ROUTES])
    metrics = None
    if settings.metrics:
        caches = partial(cache_figures, services, graphql)
        metrics = Metrics(services, metrics_folder, lambda: flat(caches()))

    async def healthz(request: Request) -> Response:
        return json_response({"status": "ok"})

    readiness = Readiness(services.store, services.event_hub)

    async def readyz(request: Request) -> Response:
        """Ready when the process can serve correctly (`rest.ops.readiness`, answered
        within READY_SECONDS); with the figures of the process's caches, each bounded in
        bytes, keys included (docs/api.md, docs/limits.md)."""
        reasons = await readiness.reasons()
        if reasons:
            error = ApiError(
                ErrorCode.NOT_READY,
                reason="; ".join(reasons),
                retry_after=settings.retry_after_seconds,
            )
            return error_response(error)
        cache = asdict(services.store.cache.stats())
        return json_response(
            {
                "status": "ready",
                "change_streams": readiness.change_streams(),
                "read_cache": cache,
                **cache_figures(services, graphql),
            }
        )

    static = graphiql_routes()[0]
    assert isinstance(static, Mount)
    routes: list[BaseRoute] = [
        # The API first (Starlette tries routes in order), its documents before its
        # catch-all; then GraphQL, the pages and the rest.
        *openapi_routes(rest.graphql, settings),
        *reference_page_routes(),
        Route("/v1", rest.handle, methods=ALL_METHODS),
        Route("/v1/{rest:path}", rest.handle, methods=ALL_METHODS),
        Route("/graphql", graphql, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", graphql),  # subscriptions (docs/graphql.md)
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        *sdl_routes(schemas),
        *landing_routes(settings),
        *viewer_routes(settings),
        *maplibre_page_routes(settings),
        *(metrics.routes() if metrics is not None else ()),
        Mount(GRAPHIQL_STATIC_PREFIX, app=static.app),  # compressed as every answer is
        Route("/files/{name:path}", files_endpoint(services), methods=["GET"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(rest.prepare_all(then=settle_again))]
        if ensure_indexes:
            tasks.append(asyncio.create_task(ensure_indexes_until_done(services.store)))
        if metrics is not None and metrics.folder is not None:
            tasks.append(asyncio.create_task(metrics.folder.keep_written(metrics.figures)))
        services.store.watch_changes()
        try:
            with on_stop_signal(
                services.event_hub.end_all, settings.drain_seconds, readiness.drain
            ):
                yield
        finally:
            for task in tasks:
                task.cancel()
            await services.event_hub.close()  # subscriptions' change stream, if one ran
            await services.subscription_slots.close()
            if metrics is not None and metrics.folder is not None:
                metrics.folder.write(metrics.figures())  # this worker's last requests count
            if owned:
                await services.store.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    redirect_slashes_relatively(app.router)
    app.add_exception_handler(BodyTooLarge, _body_too_large)
    app.add_exception_handler(BodyStalled, _body_stalled)
    app.add_exception_handler(405, _method_not_allowed)
    app.add_exception_handler(404, _not_found)
    app.add_exception_handler(Exception, _server_error)
    app.state.services = services
    app.state.schemas = schemas
    boundary = Boundary(Compression(app), settings)  # docs/api.md, "Compression"
    boundary.services = services
    boundary.metrics = metrics
    return traced(boundary, settings)


def redirect_slashes_relatively(router: Router) -> None:
    """Starlette's redirect of `/graphql/` to `/graphql` (and of `/files` to `/files/`),
    with a relative Location: Starlette's own is built from the Host header, which the
    client chooses (`Host: evil.example` came back in Location)."""
    router.redirect_slashes = False
    not_found = router.default

    async def default(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "/")
        if scope["type"] == "http" and path != "/":
            probe = {**scope, "path": path.rstrip("/") if path.endswith("/") else path + "/"}
            if any(route.matches(probe)[0] is not Match.NONE for route in router.routes):
                raw = (scope.get("raw_path") or path.encode()).decode("latin-1")
                other = raw.rstrip("/") if raw.endswith("/") else raw + "/"
                location = "/" + other.lstrip("/")  # never `//host`, another origin
                if query := scope.get("query_string", b""):
                    location += "?" + query.decode("latin-1")
                await RedirectResponse(location)(scope, receive, send)
                return
        await not_found(scope, receive, send)

    router.default = default


async def _method_not_allowed(request: Request, exc: Exception) -> Response:
    allow = getattr(exc, "headers", None) or {}
    return error_of(ErrorCode.METHOD_NOT_ALLOWED, headers=dict(allow))


async def _body_too_large(request: Request, exc: Exception) -> Response:
    return error_of(ErrorCode.PAYLOAD_TOO_LARGE)


async def _body_stalled(request: Request, exc: Exception) -> Response:
    """A client that stops sending its body mid-way gets its connection back closed."""
    return error_of(ErrorCode.REQUEST_TIMEOUT, headers={"Connection": "close"})


async def _not_found(request: Request, exc: Exception) -> Response:
    return error_of(ErrorCode.NOT_FOUND)


async def _server_error(request: Request, exc: Exception) -> Response:
    """Starlette answers with this, then re-raises for `Boundary` to log with the request id."""
    if isinstance(exc, UNAVAILABLE_ERRORS):
        settings: Settings = request.app.state.services.settings
        return error_of(ErrorCode.SERVICE_UNAVAILABLE, retry_after=settings.retry_after_seconds)
    return error_of(ErrorCode.INTERNAL)


def app_from_env() -> ASGIApp:
    """Factory for `uvicorn --factory` workers: settings and database from the environment."""
    folder = os.environ.get(METRICS_FOLDER)
    settings = Settings.from_env()
    app = create_app(settings, metrics_folder=MetricsFolder(Path(folder)) if folder else None)
    settle_heap(keeps_results=settings.read_cache_mb > 0)
    return app


def settle_heap(keeps_results: bool = True) -> None:
    """After start-up, in each worker: what start-up made (modules, the schema, documents,
    routes, about 80,000 objects) lives as long as the process, so move it out of the
    collector's sight. A full collection then walks only what requests left, not all of
    it again (measured: 68 ms, the slowest request of 1,500, against 1.3 ms). No
    collection first: it would cost that much on the path to the first answer, to free
    the few thousand objects of garbage start-up leaves (about 0.5 MB, kept). The
    thresholds go back to the serving ones (`floorgate serve` starts without full
    collections, rest/cli/main.py). The interpreter switches threads every
    SWITCH_INTERVAL_SECONDS, so that the CPU pool's work holds requests less. With a read
    cache (`keeps_results`), large blocks get pages of their own (`return_large_blocks`)."""
    gc.freeze()
    gc.set_threshold(*SERVING_GC_THRESHOLDS)
    if keeps_results:
        return_large_blocks()
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


def settle_again() -> None:
    """The schema, built after start (`schema.lazy`), lives as long as the process too:
    out of the collector's sight as well where start-up's objects were (`settle_heap`)."""
    if gc.get_freeze_count():
        gc.freeze()


def return_large_blocks() -> None:
    """glibc: blocks of LARGE_BLOCK bytes or more always get pages of their own and give
    them back when freed. By default the threshold rises with the largest block freed,
    and large answers and cached results then come from the heap, which fragments: with
    the read cache evicting pages of 1,000 units, RSS grew about 10 MiB past its byte
    budget (docs/performance-history.md, "Read cache"). Only with a read cache: without
    one there is no budget to hold, and every large answer would pay its pages anew
    (fresh pages are faulted in and zeroed: server CPU for `GET /v1/units?per-page=1000`
    about 1.4x the minimal server's with it, 1.2x without, issue 36). Nothing on other C
    libraries."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK)  # the process's own libc
