"""Closures across processes (issue 50): two `floorgate serve` processes on one
database. A closure written through one is listed through the other within a second
(the other's read cache learns of it from the change stream), its reopening too, and a
closure ends at its `until` on both with no request in between, though both had kept
the answer that listed it."""

from __future__ import annotations

import asyncio
import ssl
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from storage.timestamps import format_timestamp
from tests.servers import own_demo_database, serve_tls

pytestmark = pytest.mark.e2e
CLOSURES = "/v1/unitmaps/map-b1/closures"
LIFT = {
    "unit_map_id": "map-b1",
    "kind": "connector",
    "connector_id": "b1-elevator",
    "unit_id": None,
    "connector_kind": "elevator",
    "name": None,
    "reason": "Inspection",
}


async def listed_within(
    api: httpx.AsyncClient, headers: dict, wanted: list, seconds: float
) -> float:
    """Seconds until `GET closures` answers `wanted`; fails past `seconds`."""
    start = time.monotonic()
    while True:
        answer = await api.get(CLOSURES, headers=headers)
        assert answer.status_code == 200, answer.text
        took = time.monotonic() - start
        if answer.json() == {"data": wanted}:
            return took
        assert took < seconds, (answer.json(), took)
        await asyncio.sleep(0.02)


async def listed_at_once(api: httpx.AsyncClient, headers: dict, wanted: list) -> None:
    """The first `GET closures` answers `wanted`: "at once" counted in requests, not in
    milliseconds a loaded machine may spend on one TLS request."""
    answer = await api.get(CLOSURES, headers=headers)
    assert (answer.status_code, answer.json()) == (200, {"data": wanted})


async def test_a_closure_through_one_server_holds_on_the_other(db_server, tmp_path):
    async with own_demo_database(db_server, tmp_path / "one", "floorgate_closures_e2e") as demo:
        settings, key = demo
        headers = {"API-Key": key, "Experimental-Flags": "directions"}
        (tmp_path / "two").mkdir()
        with (
            serve_tls(settings.data_dir, db_server, settings) as one,
            serve_tls(tmp_path / "two", db_server, settings) as two,
        ):
            tls_one = ssl.create_default_context(cafile=str(one.certs.ca_cert))
            tls_two = ssl.create_default_context(cafile=str(two.certs.ca_cert))
            async with (
                httpx.AsyncClient(base_url=one.base, verify=tls_one, timeout=10) as first,
                httpx.AsyncClient(base_url=two.base, verify=tls_two, timeout=10) as second,
            ):
                await listed_within(second, headers, [], 5.0)  # kept on the second now
                until = format_timestamp(datetime.now(UTC) + timedelta(seconds=4))
                body = {
                    "data": {"connector_id": "b1-elevator", "until": until, "reason": "Inspection"}
                }
                put = await first.put(CLOSURES, json=body, headers=headers)
                assert put.status_code == 200, put.text
                closed = {**LIFT, "until": until}
                assert put.json() == closed
                assert await listed_within(second, headers, [closed], 1.0) < 1.0
                await listed_at_once(first, headers, [closed])  # its own write
                # No request until it has ended: then both list nothing, at once.
                end = datetime.fromisoformat(until).timestamp()
                await asyncio.sleep(max(0.0, end - time.time()) + 0.05)
                for api in (first, second):
                    await listed_at_once(api, headers, [])
                # Closed again until reopened, then reopened through the other.
                forever = {"data": {"connector_id": "b1-elevator", "reason": "Inspection"}}
                assert (await first.put(CLOSURES, json=forever, headers=headers)).status_code == 200
                await listed_within(second, headers, [{**LIFT, "until": None}], 1.0)
                reopened = await second.delete(
                    CLOSURES, params={"connector": "b1-elevator"}, headers=headers
                )
                assert reopened.status_code == 204
                assert await listed_within(first, headers, [], 1.0) < 1.0
