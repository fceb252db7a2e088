"""Optional OpenTelemetry tracing (`FLOORGATE_TRACING=on`): a server span per request,
from opentelemetry-instrumentation-asgi when it is installed (it is not a dependency:
`pip install opentelemetry-sdk opentelemetry-instrumentation-asgi` and an exporter).

The spans go to OpenTelemetry's global tracer provider: configure it the usual way (run
under `opentelemetry-instrument`, whose environment variables choose the exporter, or
set a provider before the app starts). A key never reaches a span: the request's
address attributes are redacted as log lines are (`rest.ops.logs.redact`), and no header is
recorded. Off, or without the package, nothing of OpenTelemetry is imported.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.types import ASGIApp

from rest.ops.logs import may_hold_key, redact
from storage.settings import Settings

log = logging.getLogger("floorgate")
# Span attributes that hold the request's address (old and new semantic conventions).
ADDRESS_ATTRIBUTES = ("http.target", "http.url", "url.query", "url.full", "url.path")


def redact_span(span: Any, scope: dict[str, Any]) -> None:
    """The ASGI middleware's request hook: it runs once the span has its attributes."""
    if span is None or not span.is_recording():
        return
    attributes = getattr(span, "attributes", None) or {}
    for name in ADDRESS_ATTRIBUTES:
        value = attributes.get(name)
        if isinstance(value, str) and may_hold_key(value):
            span.set_attribute(name, redact(value))


def traced(app: ASGIApp, settings: Settings) -> ASGIApp:
    """`app` inside OpenTelemetry's ASGI middleware when tracing is on and installed."""
    if not settings.tracing:
        return app
    try:
        from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    except ImportError:
        log.warning(
            "FLOORGATE_TRACING is on, but opentelemetry-instrumentation-asgi is not "
            "installed: no spans"
        )
        return app
    return OpenTelemetryMiddleware(
        app, server_request_hook=redact_span, exclude_spans=["receive", "send"]
    )
