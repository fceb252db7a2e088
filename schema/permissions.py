"""Permission classes: each root field names what it needs; `resolvers.auth.access` checks it."""

from __future__ import annotations

from typing import Any, ClassVar

from graphql import GraphQLField
from strawberry.permission import BasePermission
from strawberry.types import Info

from resolvers.auth.access import authorize

Requirement = tuple[str | None, str | None]  # (permission, flag); (None, None): a key


class RequiresAccess(BasePermission):
    """The base of the classes `requires` makes: each names the permission and flag it demands."""

    required_permission: ClassVar[str | None]
    required_flag: ClassVar[str | None]


def requires(permission: str | None = None, flag: str | None = None) -> type[RequiresAccess]:
    """A permission class for a key (always), an experimental flag and a permission name."""

    class Requires(RequiresAccess):
        # Read by `field_requirement`, so access is checked before anything else.
        required_permission = permission
        required_flag = flag

        async def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
            await authorize(info.context, permission=permission, flag=flag)
            return True

    Requires.__name__ = f"Requires[{permission or 'key'}{', ' + flag if flag else ''}]"
    return Requires


KeyRequired = requires()


def field_requirement(field: GraphQLField) -> Requirement | None:
    """The permission and flag that a field's permission class (`requires`) demands, so
    both faces can check access before they look at anything else; None for a field
    without one (introspection, or a field open to all)."""
    definition = field.extensions.get("strawberry-definition")
    for permission_class in getattr(definition, "permission_classes", None) or ():
        if hasattr(permission_class, "required_permission"):
            return permission_class.required_permission, permission_class.required_flag
    return None
