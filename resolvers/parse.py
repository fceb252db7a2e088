"""The parse operation (E10, `parseUnitMap`): SVG text in, the parsed document out.

Access was checked by the field's permission class. Parsing is CPU work on up to
16 MiB, so it runs on the CPU pool (`storage.cpu`) and the event loop keeps serving
others; a request past its time budget stops the parse.
"""

from __future__ import annotations

from typing import Any

from parsing.errors import SvgError
from resolvers.context import RequestContext
from resolvers.errors import invalid
from storage.cpu import run_cpu


async def parse_svg(context: RequestContext, svg: str) -> dict[str, Any]:
    # The parser (lxml, svgelements) is imported by the first parse, not at start (issue 15).
    from parsing.svg import parse_unit_map

    try:
        parsed = await run_cpu(parse_unit_map, svg, context.settings.svg_limits, stoppable=True)
    except SvgError as error:
        message = str(error)
    else:
        return parsed.document
    del svg  # the error's traceback holds this frame, and errors outlive requests in cycles
    raise invalid({"svg": [message]})
