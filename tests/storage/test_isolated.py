"""Work in worker processes (storage/isolated.py): it runs elsewhere, its errors come back
whole, a cancelled call stops its work, and a dead worker costs one call, not the pool."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures.process import BrokenProcessPool

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
