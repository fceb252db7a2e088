"""Conformance: Schemathesis, driven by our own OpenAPI document, against `floorgate
serve` over real TLS on the demo property, with and without flags and keys.

Every response must be documented (status, content type, headers, schema), no
request may get a 5xx, a wrong method must be 405 with a correct `Allow`, and auth
must not be ignored. Three checks are left out, each because the contract
disagrees with Schemathesis's default expectation:
- `negative_data_rejection`: a `per-page` over the maximum is clamped, not refused
  (docs/contract.md, Paging), so it is documented as the maximum and still accepted;
- `positive_data_acceptance`: some rules cannot be written in a schema (a waypoint's
  floor must agree with its location, an item's `group_id` with the path), so a
  schema-valid body can still be 422;
- `missing_required_header`: a missing `Experimental-Flags` is 404 (docs/contract.md,
  Errors), where Schemathesis expects 400/401/403/406/415/422.

Event streams (the route table's `events` shape) are left out: a stream does not end,
and Schemathesis reads a response to its end, so each valid case would wait out the
request timeout. Their statuses and events are tested in tests/rest/v1/test_event_stream.py.

Each configuration runs every phase on every operation: its OpenAPI examples, the
coverage phase (the deterministic edge cases: boundary values, missing and wrongly typed
parameters and bodies, each for every operation) and fuzzing.
`FLOORGATE_CONFORMANCE_EXAMPLES` bounds the fuzzed examples per operation: 10 under
`make explore` (HYPOTHESIS_PROFILE=explore, with a new seed each run), 5 in `make test`
(the CPU of three runs of schemathesis is most of this file's cost, issue 64);
`FLOORGATE_CONFORMANCE_SEED` (default 1 in `make test`) makes a run repeatable.
The served instance writes no access log (`FLOORGATE_ACCESS_LOG=0`): nobody reads it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import settings as hypothesis_settings

from resolvers.auth.permissions import ALL_FLAGS
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import Shape
from storage.settings import Settings
from tests.servers import own_demo_database, serve_tls

pytestmark = pytest.mark.e2e
SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
# The profile tests/conftest.py loaded (importing hypothesis puts this file in `make explore`).
EXPLORE = not hypothesis_settings().derandomize
EXAMPLES = os.environ.get("FLOORGATE_CONFORMANCE_EXAMPLES", "10" if EXPLORE else "5")
SEED = os.environ.get(
    "FLOORGATE_CONFORMANCE_SEED", str(random.randrange(1, 2**31)) if EXPLORE else "1"
)
LEFT_OUT = "negative_data_rejection,positive_data_acceptance,missing_required_header"
STREAMS = [route.operation_id for route in ROUTES if route.shape is Shape.EVENTS]
# Schemathesis's environment: what it needs and nothing more. requests reads the proxy
# settings from every variable of the environment for each request it sends (urllib's
# `getproxies_environment`, twice a request): with the test run's whole environment that
# was 7 % of Schemathesis's profile over a run's 5,000 requests, for a server on localhost.
ENVIRONMENT = {
    name: os.environ[name] for name in ("PATH", "HOME", "LANG", "TMPDIR") if name in os.environ
}


class Server:
    def __init__(self, url: str, ca: Path, key: str) -> None:
        self.url = url
        self.ca = ca
        self.key = key


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def demo_key(db_server, tmp_path_factory) -> AsyncIterator[tuple[Settings, str]]:
    """A database of its own with the demo (the run writes assignments) and a full key."""
    async with own_demo_database(
        db_server, Path(tmp_path_factory.mktemp("conformance")), "floorgate_conformance"
    ) as demo:
        yield demo


@pytest.fixture(scope="module")
def server(db_server, demo_key) -> Iterator[Server]:
    settings, key = demo_key
    with serve_tls(
        settings.data_dir,
        db_server,
        settings,
        FLOORGATE_RATE_LIMIT_PER_SECOND="0",
        FLOORGATE_ACCESS_LOG="0",
    ) as served:
        yield Server(served.base, served.certs.ca_cert, key)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """One working folder for the three runs: hypothesis keeps its table of the characters
    a codec encodes there (`.hypothesis/unicode_data`), 1.2 s of CPU to compute, so it is
    computed once. Examples are not kept (`--generation-database none`)."""
    return Path(tmp_path_factory.mktemp("schemathesis"))


def headers_for(mode: str, key: str) -> list[str]:
    if mode == "key and flags":
        return [f"API-Key: {key}", f"Experimental-Flags: {', '.join(sorted(ALL_FLAGS))}"]
    if mode == "key, no flags":
        return [f"API-Key: {key}"]
    return []


@pytest.mark.parametrize("mode", ["key and flags", "key, no flags", "no key"])
def test_schemathesis(server: Server, mode: str, workdir: Path) -> None:
    command = [
        SCHEMATHESIS,
        "run",
        f"{server.url}/v1/openapi.json",
        "--tls-verify",
        str(server.ca),
        "--no-color",
        "--phases",
        "examples,coverage,fuzzing",
        "--checks",
        "all",
        "--exclude-checks",
        LEFT_OUT,
        "--max-examples",
        EXAMPLES,
        "--seed",
        SEED,
        "--generation-database",
        "none",
        "--request-timeout",
        "30",
    ]
    for operation_id in STREAMS:
        command += ["--exclude-operation-id", operation_id]
    for header in headers_for(mode, server.key):
        command += ["-H", header]
    run = subprocess.run(
        command, cwd=workdir, env=ENVIRONMENT, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
    assert f"{len(ROUTES) - len(STREAMS)} selected / {len(ROUTES)} total" in run.stdout
    assert " failures" not in run.stdout.split("SUMMARY")[-1]
