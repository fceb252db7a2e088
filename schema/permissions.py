"""Permission classes: each root field names what it needs; `resolvers.access` checks it."""

from __future__ import annotations

from typing import Any

from strawberry.permission import BasePermission
from strawberry.types import Info

from resolvers.access import authorize


def requires(permission: str | None = None, flag: str | None = None) -> type[BasePermission]:
    """A permission class for a key (always), an experimental flag and a permission name."""

    class Requires(BasePermission):
        # Read by REST to check access before it reports a bad request body.
        required_permission = permission
        required_flag = flag

        async def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
            await authorize(info.context, permission=permission, flag=flag)
            return True

    Requires.__name__ = f"Requires[{permission or 'key'}{', ' + flag if flag else ''}]"
    return Requires


KeyRequired = requires()
