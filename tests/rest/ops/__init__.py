"""Tests of rest/ops/: logs, metrics, TLS and tracing."""
