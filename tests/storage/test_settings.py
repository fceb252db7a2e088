"""Every limit of the hardening is a setting read from the environment (docs/api.md,
Limits; README, Configuration)."""

from __future__ import annotations

import os
import subprocess

import pytest

from storage.settings import Settings, SettingsError
from tests.servers import FLOORGATE

ENVIRONMENT = {
    "FLOORGATE_GRAPHQL_MAX_COST": ("graphql_max_cost", "1234", 1234),
    "FLOORGATE_IMDF_SNAP_METRES": ("imdf_snap_metres", "0.25", 0.25),
    "FLOORGATE_GRAPHQL_MAX_DEPTH": ("graphql_max_depth", "7", 7),
    "FLOORGATE_GRAPHQL_MAX_ALIASES": ("graphql_max_aliases", "8", 8),
    "FLOORGATE_GRAPHQL_MAX_TOKENS": ("graphql_max_tokens", "900", 900),
    "FLOORGATE_GRAPHQL_MAX_FRAGMENT_SPREADS": ("graphql_max_fragment_spreads", "9", 9),
    "FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY": ("graphql_max_cost_without_key", "5000", 5000),
    "FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES": ("graphql_max_document_bytes", "65536", 65536),
    "FLOORGATE_GRAPHQL_CACHE_MB": ("graphql_cache_mb", "64", 64),
    "FLOORGATE_RETRY_AFTER_SECONDS": ("retry_after_seconds", "11", 11),
    "FLOORGATE_REQUEST_TIMEOUT_SECONDS": ("request_timeout_seconds", "2.5", 2.5),
    "FLOORGATE_HEADER_TIMEOUT_SECONDS": ("header_timeout_seconds", "3", 3.0),
    "FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS": ("keepalive_timeout_seconds", "4", 4.0),
    "FLOORGATE_BODY_TIMEOUT_SECONDS": ("body_timeout_seconds", "6", 6.0),
    "FLOORGATE_SEND_TIMEOUT_SECONDS": ("send_timeout_seconds", "7", 7.0),
    "FLOORGATE_MAX_CONNECTIONS": ("max_connections", "12", 12),
    "FLOORGATE_MAX_HEADER_BYTES": ("max_header_bytes", "16384", 16384),
    "FLOORGATE_UNAUTHENTICATED_RATE_PER_SECOND": ("unauthenticated_rate_per_second", "0.5", 0.5),
    "FLOORGATE_UNAUTHENTICATED_BURST": ("unauthenticated_burst", "13", 13),
    "FLOORGATE_HSTS_SECONDS": ("hsts_seconds", "0", 0),
    "FLOORGATE_IMPORT_MAX_DOCUMENTS": ("import_max_documents", "5000", 5000),
    "FLOORGATE_RATE_LIMIT_PER_SECOND": ("rate_limit_per_second", "7.5", 7.5),
    "FLOORGATE_RATE_LIMIT_BURST": ("rate_limit_burst", "15", 15),
    "FLOORGATE_METRICS": ("metrics", "off", False),
    "FLOORGATE_CORS_ORIGINS": (
        "cors_origins",
        "https://a.example/, https://b.example",
        ("https://a.example", "https://b.example"),
    ),
}


@pytest.mark.parametrize("variable", ENVIRONMENT)
def test_each_limit_is_read_from_the_environment(monkeypatch, variable):
    name, raw, expected = ENVIRONMENT[variable]
    monkeypatch.setenv(variable, raw)
    settings = Settings.from_env()
    assert getattr(settings, name) == expected
    assert getattr(Settings(), name) != expected  # the default differs: the variable counts


def test_cors_star_means_any_origin(monkeypatch):
    monkeypatch.setenv("FLOORGATE_CORS_ORIGINS", "*")
    assert Settings.from_env().cors_origins == ()


def test_a_negative_imdf_snap_distance_is_none(monkeypatch):
    """No opening is snapped from a negative distance: only those on a boundary join."""
    monkeypatch.setenv("FLOORGATE_IMDF_SNAP_METRES", "-1")
    assert Settings.from_env().imdf_snap_metres == 0.0


@pytest.mark.parametrize(
    ("variable", "raw", "message"),
    [
        ("FLOORGATE_PORT", "84a3", "FLOORGATE_PORT: '84a3' is not a whole number"),
        (
            "FLOORGATE_MAX_BODY_BYTES",
            "16MB",
            "FLOORGATE_MAX_BODY_BYTES: '16MB' is not a whole number",
        ),
        (
            "FLOORGATE_SEND_TIMEOUT_SECONDS",
            "30s",
            "FLOORGATE_SEND_TIMEOUT_SECONDS: '30s' is not a number",
        ),
        (
            "FLOORGATE_RATE_LIMIT_PER_SECOND",
            "nan",
            "FLOORGATE_RATE_LIMIT_PER_SECOND: 'nan' is not a finite number",
        ),
        (
            "FLOORGATE_REQUEST_TIMEOUT_SECONDS",
            "inf",
            "FLOORGATE_REQUEST_TIMEOUT_SECONDS: 'inf' is not a finite number",
        ),
        (
            "FLOORGATE_SEND_TIMEOUT_SECONDS",
            "0",
            "FLOORGATE_SEND_TIMEOUT_SECONDS: must be more than 0, not 0.0",
        ),
        (
            "FLOORGATE_HEADER_TIMEOUT_SECONDS",
            "-1",
            "FLOORGATE_HEADER_TIMEOUT_SECONDS: must be more than 0, not -1.0",
        ),
        ("FLOORGATE_DB_TIMEOUT_MS", "0", "FLOORGATE_DB_TIMEOUT_MS: must be more than 0, not 0"),
        (
            "FLOORGATE_MAX_CONNECTIONS",
            "-5",
            "FLOORGATE_MAX_CONNECTIONS: must be more than 0, not -5",
        ),
        ("FLOORGATE_PORT", "70000", "FLOORGATE_PORT: 70000 is not a TCP port (0 to 65535)"),
        (
            "FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES",
            "0",
            "FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES: must be more than 0, not 0",
        ),
    ],
)
def test_a_value_that_cannot_be_used_is_refused_by_name(monkeypatch, variable, raw, message):
    """Not a traceback, and not a server that ends every connection at once (a send
    timeout of 0 did): the variable, the value, and what it must be."""
    monkeypatch.setenv(variable, raw)
    with pytest.raises(SettingsError) as refused:
        Settings.from_env()
    assert str(refused.value) == message


def test_settings_made_in_code_are_checked_alike():
    with pytest.raises(SettingsError) as refused:
        Settings(body_timeout_seconds=0)
    assert str(refused.value) == "FLOORGATE_BODY_TIMEOUT_SECONDS: must be more than 0, not 0"
    assert Settings(body_timeout_seconds=0.01).body_timeout_seconds == 0.01


def test_serve_says_which_variable_it_cannot_use(tmp_path):
    """`floorgate serve` exits 2 with one line, before it starts anything."""
    env = {
        "PATH": os.environ["PATH"],
        "FLOORGATE_DATA_DIR": str(tmp_path),
        "FLOORGATE_SEND_TIMEOUT_SECONDS": "0",
    }
    result = subprocess.run(
        [FLOORGATE, "serve"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr == (
        "floorgate serve: FLOORGATE_SEND_TIMEOUT_SECONDS: must be more than 0, not 0.0\n"
    )
    assert list(tmp_path.iterdir()) == []  # no database started, nothing written
