"""Work in worker processes (storage/isolated.py): it runs elsewhere, its errors come back
whole, a cancelled call stops its work, and a dead worker costs one call, not the pool."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from parsing.errors import SvgError
from parsing.limits import SvgLimits
from storage.isolated import run_isolated

PARSE = "parsing.svg:parsed_document_json"
RECT = '<rect width="1" height="1"/>'


async def test_work_runs_in_another_process():
    assert await run_isolated("os:getpid") != os.getpid()


async def test_a_parse_comes_back_as_json_and_its_errors_whole():
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"/>'
    assert (await run_isolated(PARSE, svg, SvgLimits())).startswith(b'{"version":')
    with pytest.raises(SvgError) as refused:
        await run_isolated(PARSE, "<svg>\n<g>", SvgLimits())
    assert (refused.value.line, refused.value.column) == (2, 4)
    assert str(refused.value) == (
        "malformed XML: Premature end of data in tag g line 2 (line 2, column 4)"
    )


@pytest.mark.serial  # "at once" is under a second; other tests' load on the 2 cores broke it
async def test_a_cancelled_parse_frees_its_worker():
    """Two long parses cancelled: their stop flags end them, and a small one is answered
    at once after them (the pool has two workers)."""
    big = f'<svg xmlns="http://www.w3.org/2000/svg">{RECT * 190_000}</svg>'
    long = [
        asyncio.ensure_future(run_isolated(PARSE, big, SvgLimits(), stoppable=True))
        for _ in range(2)
    ]
    await asyncio.sleep(0.3)
    for call in long:
        call.cancel()
    started = asyncio.get_running_loop().time()
    small = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
    assert await run_isolated(PARSE, small, SvgLimits(), stoppable=True)
    assert asyncio.get_running_loop().time() - started < 1.0


async def test_a_dead_worker_costs_one_call():
    with pytest.raises(BrokenProcessPool):
        await run_isolated("os:_exit", 3)
    assert await run_isolated("os:getpid") != os.getpid()


FIRST_CALLS = """
import asyncio, json
from storage.isolated import run_isolated

async def main():
    loop = asyncio.get_running_loop()
    lags = []

    async def tick():
        while True:
            start = loop.time()
            await asyncio.sleep(0.002)
            lags.append(loop.time() - start - 0.002)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.02)
    answers = await asyncio.gather(*(run_isolated("os:getpid") for _ in range(3)))
    ticker.cancel()
    print(json.dumps({"workers": len(set(answers)), "lag": max(lags)}))

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_the_first_calls_start_the_workers_off_the_event_loop(tmp_path):
    """In a fresh process the first call starts the fork server (which imports the
    parser) and the workers: 0.1-0.3 s, which a submit on the event loop held it for."""
    script = tmp_path / "first_calls.py"
    script.write_text(FIRST_CALLS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=Path(__file__).parents[2],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["workers"] >= 1
    assert answer["lag"] < 0.06, answer
