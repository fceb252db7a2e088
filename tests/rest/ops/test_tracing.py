"""Optional OpenTelemetry tracing: off by default (nothing wrapped), on it makes a server
span per request, and no span attribute ever holds a key."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from rest.app import create_app
from rest.middleware import Boundary

otel_sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk missing")


@pytest.fixture(scope="module")
def exported():
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # the global one, as `opentelemetry-instrument` sets
    return exporter


def test_off_by_default(store, settings):
    assert isinstance(create_app(settings, store), Boundary)


async def test_spans_without_keys(store, settings, keys, exported):
    app = create_app(replace(settings, tracing=True), store)
    assert not isinstance(app, Boundary)
    exported.clear()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://t") as client:
        answer = await client.get(f"/v1/assets?per-page=1&api-key={keys.full}")
        assert answer.status_code == 200
        assert (
            await client.get("/v1/units/nope", headers={"API-Key": keys.full})
        ).status_code == 404
    spans = exported.get_finished_spans()
    assert len(spans) == 2 and all(span.kind.name == "SERVER" for span in spans)
    written = repr([dict(span.attributes) for span in spans]) + repr([span.name for span in spans])
    assert keys.full not in written and "[redacted]" in written
    statuses = sorted(
        span.attributes.get("http.status_code", span.attributes.get("http.response.status_code"))
        for span in spans
    )
    assert statuses == [200, 404]
