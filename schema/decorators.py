"""Strawberry's resolver decorators, typed.

`strawberry.field(description=...)` (likewise `mutation`, `subscription`) returns `Any`,
so the resolver it decorates would lose its signature to mypy (strict refuses an untyped
decorator). `field`, `mutation` and `subscription` here call strawberry's with the same
options and say the resolver's own type: mypy checks the resolver and its callers as
written. At run time the class attribute is strawberry's field, exactly as with
strawberry's decorator (its own stubs pretend the same for `field(resolver=...)`);
nothing calls a resolver method directly.
"""

from collections.abc import Callable
from typing import Any, TypeVar

import strawberry
from strawberry.permission import BasePermission

Resolver = TypeVar("Resolver", bound=Callable[..., Any])
Permissions = list[type[BasePermission]]


def field(
    *, description: str, permission_classes: Permissions | None = None
) -> Callable[[Resolver], Resolver]:
    """`strawberry.field` on a resolver method, its signature kept for mypy."""
    decorate: Callable[[Resolver], Resolver] = strawberry.field(
        description=description, permission_classes=permission_classes
    )
    return decorate


def mutation(
    *, description: str, permission_classes: Permissions | None = None
) -> Callable[[Resolver], Resolver]:
    """`strawberry.mutation` on a resolver method, its signature kept for mypy."""
    decorate: Callable[[Resolver], Resolver] = strawberry.mutation(
        description=description, permission_classes=permission_classes
    )
    return decorate


def subscription(
    *, description: str, permission_classes: Permissions | None = None
) -> Callable[[Resolver], Resolver]:
    """`strawberry.subscription` on a resolver method, its signature kept for mypy."""
    decorate: Callable[[Resolver], Resolver] = strawberry.subscription(
        description=description, permission_classes=permission_classes
    )
    return decorate
