"""`/metrics` in Prometheus' text format, for operators.

What each worker counts: requests by route template, method and status, and their
durations (E10's parse and E18's matrix are routes: `parseUnitMap`, `distanceMatrix`);
the GraphQL cost of what ran (both faces); rate-limit refusals; the database's command
durations (`storage/command_timings.py`); the read cache's figures, and those of every
other cache by its name (`rest/ops/caches.py`: use, hits, misses, evictions, the search
indexes' builds). Labels come from
bounded sets (the REST table's operation ids, `graphql`, `files`, the fixed paths, else
`other`; the HTTP methods, else `other`), so no client can grow the number of series.

Counting is plain Python on the request path; prometheus-client is imported by the
first scrape and renders the figures then (it costs tens of ms to import: not at start).

Who may read it (`FLOORGATE_METRICS`, on by default): a client on the loopback address
without a key (also over plain HTTP: a scraper beside the worker), anyone else over HTTPS
with a key holding `service.metrics` (a scraper's key, which reads nothing else) or
`service.admin`; and, when `FLOORGATE_METRICS_PORT` is set, anyone who reaches that port
(`rest/ops/metrics_listener.py`: plain HTTP, no key, where the operator binds it). The
workers of one `--workers N` share a port, so a scrape reaches one of them: it adds up
the figures every worker writes to a shared folder (`rest/ops/metrics_folder.py`;
docs/api.md, Metrics).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from ipaddress import ip_address
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from resolvers.auth.access import authorize
from resolvers.auth.permissions import METRICS, METRICS_READERS
from resolvers.context import Services
from resolvers.errors import ApiError, ErrorCode
from rest.credentials import request_context
from rest.ops.figures import (
    CACHE_COUNTS,
    CACHE_FIGURE_COUNTS,
    CACHE_FIGURE_LEVELS,
    CACHE_LEVELS,
    DURATION_BUCKETS,
    RATE_LIMITS,
    Figures,
    add_timings,
)
from rest.ops.tls_gate import Gate
from rest.responses import error_response
from storage.command_timings import Timing

if TYPE_CHECKING:
    from rest.ops.metrics_folder import MetricsFolder

METRICS_PATH = "/metrics"
ROUTE = "route"  # scope state: the route template of the request, set where it is known
FIXED_PATHS = frozenset(
    {
        "/",
        "/healthz",
        "/readyz",
        METRICS_PATH,
        "/v1/openapi",
        "/v1/openapi.json",
        "/v1/openapi.yaml",
        "/graphql/schema.graphql",
    }
)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ip_address(host).is_loopback
    except ValueError:
        return False


def route_label(scope: Mapping[str, Any]) -> str:
    """The route template a request answered under, from a bounded set."""
    named = scope.get("state", {}).get(ROUTE)
    if isinstance(named, str):
        return named
    path = scope.get("path")
    return path if path in FIXED_PATHS else "other"


class Metrics:
    """One worker's figures (one per app: tests make many apps in one process). With a
    folder (`floorgate serve --workers N`), it writes them there for the other workers'
    scrapes and adds theirs to its own."""

    def __init__(
        self,
        services: Services,
        folder: MetricsFolder | None = None,
        caches: Callable[[], dict[str, dict[str, int]]] | None = None,
    ) -> None:
        self.services = services
        self.folder = folder
        self.caches = caches  # every other cache's figures (`rest.ops.caches.flat`)
        self.counted = Figures()  # what requests add; the rest is read at scrape time

    def observe(
        self, scope: Mapping[str, Any], status: int | None, seconds: float, cost: int | None
    ) -> None:
        counted = self.counted
        route = route_label(scope)
        method = scope.get("method")
        counted.requests[route, method if method in METHODS else "other", str(status or 0)] += 1
        timing = counted.durations.get(route)
        if timing is None:
            timing = counted.durations[route] = Timing(DURATION_BUCKETS)
        timing.observe(seconds)
        if cost is not None:
            counted.costs.observe(cost)

    def figures(self) -> Figures:
        """This worker's figures now, as a copy (the live ones go on changing)."""
        services = self.services
        stats = services.store.cache.stats()
        own = Figures(
            rate_limited=dict(
                zip(
                    RATE_LIMITS,
                    (
                        services.rate_limiter.refusals,
                        services.address_limiter.refusals,
                        Gate.closed_in_process,
                    ),
                    strict=True,
                )
            ),
            cache_counts={name: getattr(stats, name) for name in CACHE_COUNTS},
            cache_levels={
                name: int(getattr(stats, attribute))
                for name, (attribute, _) in CACHE_LEVELS.items()
            },
            caches={} if self.caches is None else self.caches(),
            workers=1,
        )
        own.add(self.counted)
        add_timings(own.commands, services.store.timings.by_command)
        return own

    def exposition(self) -> tuple[bytes, str]:
        """The text format and its media type: every worker's figures where they share a
        folder, else this one's."""
        figures = self.figures()
        if self.folder is not None:
            self.folder.add_others(figures)
        return render(figures)

    def routes(self) -> list[BaseRoute]:
        async def endpoint(request: Request) -> Response:
            if not is_loopback(request.client.host if request.client else None):
                context = request_context(request, self.services)
                context.reads_metrics = True  # a key of service.metrics alone is served here
                try:
                    caller = await authorize(context)
                    if not caller.permissions & METRICS_READERS:
                        raise ApiError(ErrorCode.FORBIDDEN, permission=METRICS)
                except ApiError as error:
                    return error_response(error)
            content, media_type = self.exposition()
            return Response(content, media_type=media_type)

        return [Route(METRICS_PATH, endpoint, methods=["GET"])]


def render(figures: Figures) -> tuple[bytes, str]:
    """Figures in Prometheus' text format, and its media type (prometheus-client is
    imported here, by the first scrape)."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(figures))
    return generate_latest(registry), CONTENT_TYPE_LATEST


class _Collector:
    """Renders figures as Prometheus metric families, at scrape time."""

    def __init__(self, figures: Figures) -> None:
        self.figures = figures

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        figures = self.figures
        requests = CounterMetricFamily(
            "floorgate_requests",
            "Requests answered, by route template, method and status",
            labels=["route", "method", "status"],
        )
        for labels, count in sorted(figures.requests.items()):
            requests.add_metric(list(labels), count)
        yield requests
        durations = HistogramMetricFamily(
            "floorgate_request_duration_seconds",
            "Time from the request to the end of its answer, by route template",
            labels=["route"],
        )
        for route, timing in sorted(figures.durations.items()):
            durations.add_metric([route], timing.cumulative(), timing.total)
        yield durations
        costs = HistogramMetricFamily(
            "floorgate_graphql_cost", "GraphQL cost of the operations that ran (REST and /graphql)"
        )
        costs.add_metric([], figures.costs.cumulative(), figures.costs.total)
        yield costs
        refused = CounterMetricFamily(
            "floorgate_rate_limited",
            "Requests refused by a rate limit (429 or RATE_LIMITED), and new TLS connections "
            "closed before their handshake by their address's pace (limit=connection)",
            labels=["limit"],
        )
        for limit, count in sorted(figures.rate_limited.items()):
            refused.add_metric([limit], count)
        yield refused
        commands = HistogramMetricFamily(
            "floorgate_db_command_duration_seconds",
            "Database command durations, by command",
            labels=["command"],
        )
        for name, timing in sorted(figures.commands.items()):
            commands.add_metric([name], timing.cumulative(), timing.total)
        yield commands
        for name, text in CACHE_COUNTS.items():
            yield CounterMetricFamily(
                f"floorgate_read_cache_{name}", text, value=figures.cache_counts[name]
            )
        for name, (_, text) in CACHE_LEVELS.items():
            yield GaugeMetricFamily(
                f"floorgate_read_cache_{name}", text, value=figures.cache_levels[name]
            )
        yield from _cache_families(figures.caches)
        yield GaugeMetricFamily(
            "floorgate_workers",
            "Running workers whose figures this scrape adds up",
            value=figures.workers,
        )


def _cache_families(caches: dict[str, dict[str, int]]) -> Iterator[Any]:
    """`floorgate_cache_<figure>{cache="<name>"}` for every figure of every other cache:
    a gauge for what it holds now, a counter for the rest."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    names = sorted({figure for figures in caches.values() for figure in figures})
    for figure in names:
        family: Any
        if figure in CACHE_FIGURE_LEVELS:
            family = GaugeMetricFamily(
                f"floorgate_cache_{figure}", CACHE_FIGURE_LEVELS[figure], labels=["cache"]
            )
        else:
            text = CACHE_FIGURE_COUNTS.get(figure, figure.replace("_", " ").capitalize())
            family = CounterMetricFamily(f"floorgate_cache_{figure}", text, labels=["cache"])
        for cache, figures in sorted(caches.items()):
            if figure in figures:
                family.add_metric([cache], figures[figure])
        yield family
