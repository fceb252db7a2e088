"""Every limit of the hardening is a setting read from the environment (docs/api.md,
Limits; docs/configuration.md), and the settings table (`storage/settings.py SETTINGS`)
is what `Settings.from_env` reads and what `floorgate serve --help` shows."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import typing
from pathlib import Path
from typing import Any

import pytest

from rest.cli.main import main
from storage import settings_fields as fields
from storage.settings import SETTINGS, Setting, Settings, SettingsError
from storage.settings_fields import value_at
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


# -- the table ---------------------------------------------------------------------------

# For each kind: a valid text and the value it must give, unlike the row's default.
SAMPLES: dict[fields.Kind, Any] = {
    fields.WHOLE: lambda row: (str((row.default or 0) + 3), (row.default or 0) + 3),
    fields.NUMBER: lambda row: (repr(row.default + 0.25), row.default + 0.25),
    fields.SWITCH: lambda row: ("Off", False) if row.default else ("ON", True),
    fields.TEXT: lambda row: ("elsewhere", "elsewhere"),
    fields.URL: lambda row: ("https://api.example.com/", "https://api.example.com"),
    fields.PATH: lambda row: ("/srv/floorgate", Path("/srv/floorgate")),
    fields.WORD: lambda row: ("AsyncIO", "asyncio"),
    fields.LIST: lambda row: (" 10.0.0.5 , ,10.0.0.6", ("10.0.0.5", "10.0.0.6")),
    fields.ORIGINS: lambda row: ("https://a.example/, *", ("https://a.example",)),
    fields.LOG_FORMAT: lambda row: ("JSON", "json"),
    fields.FRAME_SOURCES: lambda row: ("'SELF' https://x.example", ("'self'", "https://x.example")),
    fields.PERSISTED_MODE: lambda row: (" SafeList ", "safelist"),
    fields.LANGUAGE: lambda row: ("ZH-hant", "zh-Hant"),
}
ROWS = {row.variable: row for row in SETTINGS}


def sample(row: Setting) -> tuple[str, Any]:
    assert row.kind in SAMPLES, f"add a sample of the kind {row.kind.name!r} to SAMPLES"
    raw, expected = SAMPLES[row.kind](row)
    assert expected != row.default
    return raw, expected


def test_the_table_names_each_variable_and_attribute_once():
    assert len(ROWS) == len(SETTINGS)
    assert len({row.name for row in SETTINGS}) == len(SETTINGS)
    assert all(row.variable.startswith("FLOORGATE_") for row in SETTINGS)
    assert all("\n" not in row.help and row.help.endswith(".") for row in SETTINGS)


def test_each_attribute_is_declared_with_its_row_and_its_kinds_type():
    """`Settings` is written out, so its annotations must say what the kinds read (a type
    checker says so too; this holds without one). Every field has a row or parts."""
    hints = typing.get_type_hints(Settings)
    declared = {row.name: row.attribute_type for row in SETTINGS if "." not in row.name}
    assert {name: hints[name] for name in declared} == declared
    composites = {row.name.partition(".")[0] for row in SETTINGS if "." in row.name}
    assert composites == {"svg_limits", "routing_costs"}
    assert set(hints) == set(declared) | composites
    for name in composites:
        parts = {row.name.partition(".")[2] for row in SETTINGS if row.name.startswith(name)}
        assert parts == {each.name for each in dataclasses.fields(hints[name])}


def test_the_defaults_of_settings_are_the_tables():
    defaults = Settings()
    assert {row.variable: value_at(defaults, row.name) for row in SETTINGS} == {
        row.variable: row.default for row in SETTINGS
    }
    assert (defaults.port, defaults.svg_limits.max_bytes, defaults.routing_costs.foot_speed) == (
        8443,
        16 * 1024 * 1024,
        4.4,
    )
    assert Settings.port == 8443  # the CLI reads defaults from the class


@pytest.mark.parametrize("variable", ROWS)
def test_every_row_is_read_from_its_variable(monkeypatch, variable):
    row = ROWS[variable]
    raw, expected = sample(row)
    for other in ROWS:
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(variable, raw)
    settings = Settings.from_env()
    assert value_at(settings, row.name) == expected
    assert type(value_at(settings, row.name)) is type(expected)
    others = {other.name: value_at(settings, other.name) for other in SETTINGS if other != row}
    assert others == {other.name: other.default for other in SETTINGS if other != row}


def test_every_row_at_once():
    environ = {row.variable: sample(row)[0] for row in SETTINGS}
    settings = Settings.from_env(environ)
    assert {row.variable: value_at(settings, row.name) for row in SETTINGS} == {
        row.variable: sample(row)[1] for row in SETTINGS
    }
    assert Settings.from_env(environ, port=9000, host="0.0.0.0").port == 9000


def test_an_empty_variable_is_the_default():
    settings = Settings.from_env({row.variable: "" for row in SETTINGS})
    assert settings == Settings()


@pytest.mark.parametrize(
    ("variable", "raw", "expected"),
    [
        ("FLOORGATE_ACCESS_LOG", "maybe", True),  # a switch's unknown word: the default
        ("FLOORGATE_TRACING", "yes", True),
        ("FLOORGATE_BEHIND_PROXY", "on", True),
        ("FLOORGATE_BEHIND_PROXY", "1", True),
        ("FLOORGATE_BEHIND_PROXY", "no", False),
        ("FLOORGATE_RATE_LIMIT_SHARE", "0", 1),  # below its floor: the floor
        ("FLOORGATE_READ_CACHE_MB", "-5", 0),
        ("FLOORGATE_READ_CACHE_MB", "0", 0),
        ("FLOORGATE_PROXY_ADDRESSES", " , ", ("127.0.0.1",)),  # no item: the default
        ("FLOORGATE_CORS_ORIGINS", "*", ()),
        ("FLOORGATE_LOG_FORMAT", "yaml", "text"),
        ("FLOORGATE_PUBLIC_URL", "https://api.example.com//", "https://api.example.com"),
        ("FLOORGATE_VIEWER_FRAME_ANCESTORS", "   ", ("'none'",)),
        ("FLOORGATE_PORT", "0", 0),
    ],
)
def test_what_a_text_means(variable, raw, expected):
    row = ROWS[variable]
    assert value_at(Settings.from_env({variable: raw}), row.name) == expected


WHOLE_ROWS = [row.variable for row in SETTINGS if row.kind is fields.WHOLE]
NUMBER_ROWS = [row.variable for row in SETTINGS if row.kind is fields.NUMBER]
POSITIVE_ROWS = [row.variable for row in SETTINGS if row.check is fields.MORE_THAN_ZERO]


def refusal(environ: dict[str, str]) -> str:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env(environ)
    return str(refused.value)


@pytest.mark.parametrize("variable", WHOLE_ROWS)
def test_a_whole_number_that_is_not_one_is_refused(variable):
    assert refusal({variable: "12.5"}) == f"{variable}: '12.5' is not a whole number"


@pytest.mark.parametrize("variable", NUMBER_ROWS)
def test_a_number_that_is_not_one_is_refused(variable):
    assert refusal({variable: "1,5"}) == f"{variable}: '1,5' is not a number"
    assert refusal({variable: "-inf"}) == f"{variable}: '-inf' is not a finite number"


@pytest.mark.parametrize("variable", POSITIVE_ROWS)
def test_zero_is_refused_where_it_means_nothing(variable):
    zero = "0.0" if ROWS[variable].kind is fields.NUMBER else "0"
    assert refusal({variable: "0"}) == f"{variable}: must be more than 0, not {zero}"


def test_the_checked_rows_are_those_of_before():
    assert POSITIVE_ROWS == [
        "FLOORGATE_MAX_BODY_BYTES",
        "FLOORGATE_MAX_HEADER_BYTES",
        "FLOORGATE_MAX_CONNECTIONS",
        "FLOORGATE_NEW_CONNECTIONS_BURST",
        "FLOORGATE_REQUEST_TIMEOUT_SECONDS",
        "FLOORGATE_HEADER_TIMEOUT_SECONDS",
        "FLOORGATE_KEEPALIVE_TIMEOUT_SECONDS",
        "FLOORGATE_BODY_TIMEOUT_SECONDS",
        "FLOORGATE_SEND_TIMEOUT_SECONDS",
        "FLOORGATE_DB_TIMEOUT_MS",
        "FLOORGATE_MAX_SUBSCRIPTIONS_PER_KEY",
        "FLOORGATE_MAX_SOCKETS_PER_KEY",
        "FLOORGATE_GRAPHQL_MAX_COST_WITHOUT_KEY",
        "FLOORGATE_GRAPHQL_MAX_DOCUMENT_BYTES",
        "FLOORGATE_GRAPHQL_CACHE_MB",
        "FLOORGATE_PERSISTED_QUERIES_MAX_COUNT",
        "FLOORGATE_PERSISTED_QUERIES_MAX_BYTES",
    ]
    assert refusal({"FLOORGATE_PORT": "-1"}) == "FLOORGATE_PORT: -1 is not a TCP port (0 to 65535)"
    assert refusal({"FLOORGATE_VIEWER_FRAME_ANCESTORS": "'self'; script-src *"}) == (
        "FLOORGATE_VIEWER_FRAME_ANCESTORS: no ';', ',', quote or line break; "
        "separate sources with spaces"
    )


# -- floorgate serve --help and floorgate demo --help -----------------------------------


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as ended:
        main([command, "--help"])
    assert ended.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_help_ends_with_every_variable(command, capsys):
    text = help_of(command, capsys)
    environment = text[text.index("\nenvironment (") + 1 :].splitlines()
    assert environment[:2] == [
        "environment (unset or empty: the default; an option given here wins;",
        "docs/configuration.md says more):",
    ]
    named = [line.split()[0] for line in environment[2:] if not line.startswith("      ")]
    assert named == [row.variable for row in SETTINGS]
    assert all(len(line) <= 79 for line in environment)
    port = environment.index("  FLOORGATE_PORT (default 8443; --port wins)")
    assert environment[port + 1] == "      Port floorgate serve and floorgate demo listen on."
    assert "  FLOORGATE_MONGODB_URI (unset)" in environment
    assert "  FLOORGATE_VIEWER_FRAME_ANCESTORS (default 'none')" in environment
    assert "  FLOORGATE_REQUEST_TIMEOUT_SECONDS (default 20)" in environment
    assert "  FLOORGATE_DATA_DIR (default .floorgate; --data-dir wins)" in environment
    host = "  FLOORGATE_HOST (default 127.0.0.1; --host wins)"
    assert (host in environment) == (command == "serve")  # demo has no --host


def test_every_option_a_row_names_is_an_option_of_serve(capsys):
    serve, everything = help_of("serve", capsys), main_help(capsys)
    options = [row.option for row in SETTINGS if row.option]
    assert options == [
        "--data-dir",
        "--public-url",
        "--host",
        "--port",
        "--cert",
        "--key",
        "--behind-proxy",
        "--proxy-address",
    ]
    usage = serve[: serve.index("\noptions:")] + everything[: everything.index("\npositional")]
    assert [option for option in options if f"[{option}" not in usage] == []


def main_help(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(["--help"])
    return capsys.readouterr().out


def test_the_real_command_shows_it():
    result = subprocess.run(
        [FLOORGATE, "serve", "--help"], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert all(f"\n  {row.variable} (" in result.stdout for row in SETTINGS)


def test_the_persisted_queries_mode_is_one_of_three():
    assert Settings.from_env({"FLOORGATE_PERSISTED_QUERIES": "OFF"}).persisted_queries == "off"
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"FLOORGATE_PERSISTED_QUERIES": "allowlist"})
    assert str(refused.value) == (
        "FLOORGATE_PERSISTED_QUERIES: 'allowlist' is not one of auto, safelist, off"
    )


def test_settings_written_as_the_environment_read_back_to_themselves():
    """`floorgate serve` hands its settings to its workers as the environment
    (`Settings.environment`): every row, read back unchanged, numbers to the last digit."""
    assert Settings.from_env(Settings().environment()) == Settings()
    made = dataclasses.replace(
        Settings(),
        data_dir=Path("some/where"),
        mongodb_uri="mongodb://db.example:27017/?replicaSet=rs0",
        public_url="https://maps.example.org",
        cdn_url="https://cdn.example.org/files",
        port=9443,
        behind_proxy=True,
        proxy_addresses=("10.0.0.0/8", "fd00::/8"),
        header_timeout_seconds=2.718281828459045,
        cors_origins=("https://a.example", "https://b.example"),
        viewer_frame_ancestors=("'self'", "https://*.example.org"),
        log_format="json",
        metrics_port=9100,
        default_language="zh-Hant",
        imdf_snap_metres=0.125,
    )
    environment = made.environment()
    assert {row.variable for row in SETTINGS} == environment.keys()
    assert environment["FLOORGATE_HEADER_TIMEOUT_SECONDS"] == "2.718281828459045"
    assert environment["FLOORGATE_BEHIND_PROXY"] == "on"
    assert Settings.from_env(environment) == made
