"""`/metrics` in Prometheus' text format, for operators.

What each worker counts: requests by route template, method and status, and their
durations (E10's parse and E18's matrix are routes: `parseUnitMap`, `distanceMatrix`);
the GraphQL cost of what ran (both faces); rate-limit refusals; the database's command
durations (`storage/command_timings.py`); the read cache's figures. Labels come from
bounded sets (the REST table's operation ids, `graphql`, `files`, the fixed paths, else
`other`; the HTTP methods, else `other`), so no client can grow the number of series.

Counting is plain Python on the request path; prometheus-client is imported by the
first scrape and renders the figures then (it costs tens of ms to import: not at start).

Who may read it (`FLOORGATE_METRICS`, on by default): a client on the loopback address
without a key (also over plain HTTP: a scraper beside the worker), anyone else with a
key holding `service.admin`. Every worker answers for itself; the workers of one
`--workers N` share a port, so a scrape reaches one of them (docs/api.md, Metrics).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from ipaddress import ip_address
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from resolvers.access import authorize
from resolvers.context import Services
from resolvers.errors import ApiError
from resolvers.permissions import ADMIN
from rest.credentials import request_context
from rest.responses import error_response
from storage.command_timings import Timing

METRICS_PATH = "/metrics"
ROUTE = "route"  # scope state: the route template of the request, set where it is known
FIXED_PATHS = frozenset({
    "/", "/healthz", "/readyz", METRICS_PATH, "/v1/openapi", "/v1/openapi.json",
    "/v1/openapi.yaml", "/graphql/schema.graphql",
})  # fmt: skip
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                    20.0)  # fmt: skip
COST_BUCKETS = (1, 10, 100, 1_000, 10_000, 50_000, 100_000, 250_000)


def is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ip_address(host).is_loopback
    except ValueError:
        return False


def route_label(scope: dict[str, Any]) -> str:
    """The route template a request answered under, from a bounded set."""
    named = scope.get("state", {}).get(ROUTE)
    if isinstance(named, str):
        return named
    path = scope.get("path")
    return path if path in FIXED_PATHS else "other"


class Metrics:
    """One worker's figures (one per app: tests make many apps in one process)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.requests: Counter[tuple[str, str, str]] = Counter()
        self.durations: dict[str, Timing] = {}
        self.costs = Timing(COST_BUCKETS)

    def observe(self, scope: dict[str, Any], status: int | None, seconds: float,
                cost: int | None) -> None:  # fmt: skip
        route = route_label(scope)
        method = scope.get("method")
        self.requests[route, method if method in METHODS else "other", str(status or 0)] += 1
        timing = self.durations.get(route)
        if timing is None:
            timing = self.durations[route] = Timing(DURATION_BUCKETS)
        timing.observe(seconds)
        if cost is not None:
            self.costs.observe(cost)

    def exposition(self) -> tuple[bytes, str]:
        """The text format and its media type."""
        from prometheus_client import CollectorRegistry
        from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Figures(self))
        return generate_latest(registry), CONTENT_TYPE_LATEST

    def routes(self) -> list[BaseRoute]:
        async def endpoint(request: Request) -> Response:
            if not is_loopback(request.client.host if request.client else None):
                try:
                    await authorize(request_context(request, self.services), permission=ADMIN)
                except ApiError as error:
                    return error_response(error)
            content, media_type = self.exposition()
            return Response(content, media_type=media_type)

        return [Route(METRICS_PATH, endpoint, methods=["GET"])]


class _Figures:
    """Renders the figures as Prometheus metric families, at scrape time."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        metrics, services = self.metrics, self.metrics.services
        requests = CounterMetricFamily("floorgate_requests", "Requests answered, by route "
                                       "template, method and status",
                                       labels=["route", "method", "status"])  # fmt: skip
        for labels, count in sorted(metrics.requests.items()):
            requests.add_metric(list(labels), count)
        yield requests
        durations = HistogramMetricFamily("floorgate_request_duration_seconds", "Time from "
                                          "the request to the end of its answer, by route "
                                          "template", labels=["route"])  # fmt: skip
        for route, timing in sorted(metrics.durations.items()):
            durations.add_metric([route], timing.cumulative(), timing.total)
        yield durations
        costs = HistogramMetricFamily("floorgate_graphql_cost", "GraphQL cost of the "
                                      "operations that ran (REST and /graphql)")  # fmt: skip
        costs.add_metric([], metrics.costs.cumulative(), metrics.costs.total)
        yield costs
        refused = CounterMetricFamily("floorgate_rate_limited", "Requests refused by a rate "
                                      "limit (429 or RATE_LIMITED)", labels=["limit"])  # fmt: skip
        refused.add_metric(["key"], services.rate_limiter.refusals)
        refused.add_metric(["address"], services.address_limiter.refusals)
        yield refused
        commands = HistogramMetricFamily("floorgate_db_command_duration_seconds", "Database "
                                         "command durations, by command",
                                         labels=["command"])  # fmt: skip
        for name, timing in sorted(services.store.timings.by_command.items()):
            commands.add_metric([name], timing.cumulative(), timing.total)
        yield commands
        stats = services.store.cache.stats()
        for name, value, text in (
            ("hits", stats.hits, "Reads answered from the read cache"),
            ("misses", stats.misses, "Reads that went to the database and were kept"),
            ("bypassed", stats.bypassed, "Reads while the cache did not serve"),
            ("answer_hits", stats.answer_hits, "Whole answers served from the cache"),
            ("invalidations", stats.invalidations, "Collection versions moved"),
            ("flushes", stats.flushes, "Times the whole cache was dropped"),
        ):  # fmt: skip
            yield CounterMetricFamily(f"floorgate_read_cache_{name}", text, value=value)
        for name, value, text in (
            ("entries", stats.entries, "Results and answers kept"),
            ("bytes", stats.bytes_used, "Bytes kept"),
            ("budget_bytes", stats.budget_bytes, "Byte budget (FLOORGATE_READ_CACHE_MB)"),
            ("live", int(stats.live), "1 while the change stream is up and the cache serves"),
        ):  # fmt: skip
            yield GaugeMetricFamily(f"floorgate_read_cache_{name}", text, value=value)
