"""The parse operation (E10, `parseUnitMap`): SVG text in, the parsed document out.

Access was checked by the field's permission class. Parsing is CPU work on up to
16 MiB that holds the interpreter while libxml2 reads, so it runs in a worker process
(`storage.isolated`): the event loop and the threads of this one keep serving others at
full speed. A request past its time budget stops the parse at its next element.
"""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool
from typing import Any, cast

import orjson

from parsing.errors import SvgError
from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode, invalid
from resolvers.limits import JSON_ON_LOOP_BYTES
from storage.cpu import run_cpu
from storage.isolated import run_isolated

PARSE = "parsing.svg:parsed_document_json"


async def parse_svg(context: RequestContext, svg: str) -> dict[str, Any]:
    limits = context.settings.svg_limits
    try:  # the parser (lxml, svgelements) is imported by the worker, never by this process
        document = await run_isolated(PARSE, svg, limits, stoppable=True)
    except SvgError as error:
        message = str(error)
    except BrokenProcessPool:  # a worker died (out of memory, killed): try again later
        raise ApiError(
            ErrorCode.SERVICE_UNAVAILABLE, retry_after=context.settings.retry_after_seconds
        ) from None
    else:
        del svg
        if len(document) > JSON_ON_LOOP_BYTES:
            return await run_cpu(orjson.loads, document)
        return cast("dict[str, Any]", orjson.loads(document))  # a parsed document's JSON object
    del svg  # the error's traceback holds this frame, and errors outlive requests in cycles
    raise invalid({"svg": [message]})
