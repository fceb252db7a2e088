"""The access check every operation runs first, in the contract's order.

Authentication (401/403), then the experimental flag (404), then the permission (403).
"""

from __future__ import annotations

from resolvers.auth.keys import Caller
from resolvers.context import RequestContext
from resolvers.errors import ApiError, ErrorCode


async def authorize(
    context: RequestContext, permission: str | None = None, flag: str | None = None
) -> Caller:
    caller = await context.caller()
    if flag is not None and flag not in context.flags:
        raise ApiError(ErrorCode.FLAG_REQUIRED, flag=flag)
    if permission is not None and permission not in caller.permissions:
        raise ApiError(ErrorCode.FORBIDDEN, permission=permission)
    return caller
