"""Direct plans: a query whose root fields all come from the table (`schema.queries
ROOT_FIELDS`) and whose selections below are plain runs without graphql-core's executor.

For such a root field graphql-core and strawberry do, per request: arguments from the
variables, the permission class (`schema.permissions.requires`: `authorize`), the
row's resolver with the context and the arguments in the row's order, a page told its
list (`resolvers.paging.tell_list`), and the completion of the value. A direct plan
does exactly these steps, and nothing else: no execution context, no info object, no
resolver wrappers (about half of an uncached one-object read's CPU,
docs/performance-history.md).

What a direct plan does not do itself, it hands back (`STEP_ASIDE`) before it runs
anything or after it ran only reads: a null in a non-null argument, a completer that
meets something it does not handle, more than one root field failing. The caller then
executes the operation through graphql-core, which gives the exact answer; a query's
resolvers only read, so running one again changes nothing. A root field that fails
(its access check, its resolver) is one error at its path, as graphql-core reports it.

This module imports nothing of GraphQL: the REST table's plans made ahead of time run
before graphql-core and strawberry are imported (`schema.execution.running.planned`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from resolvers.auth.access import authorize
from resolvers.paging import tell_list

Completer = Callable[[Any], Any]
Requirement = tuple[str | None, str | None]  # (permission, flag) of the root field's class


class StepAside(Exception):  # a signal, not an error
    """The plan cannot give this answer exactly: graphql-core executes the operation."""


STEP_ASIDE = StepAside


@dataclass(frozen=True)
class Argument:
    """Where one argument of the row's resolver comes from: a variable (absent: `value`,
    the argument's default) or a constant (a literal of the document, or the default)."""

    name: str  # in the schema (`assetId`)
    variable: str | None
    value: Any
    required: bool  # a non-null argument: null there is graphql-core's error to report


@dataclass(frozen=True)
class DirectRoot:
    """One root field of the operation: its response key, the row's resolver and access
    rule, its arguments in the row's order, and the completer of its value."""

    key: str
    field: str  # its name in the schema
    call: Callable[..., Awaitable[Any]]
    arguments: tuple[Argument, ...]
    requirement: Requirement
    complete: Completer
    nullable: bool  # a failure leaves null at `key`; else the whole data is null
    filters: tuple[int, ...] | None  # a page's filters (argument positions); else None
    error_nodes: Any = None  # what a failure's error points at (graphql-core's field nodes)
    # Its completer reads a page's items as stored (`shapes.with_stored_ids`): the row's
    # resolver is told so (`RequestContext.stored_ids`) and leaves their `_id` as it is.
    stored_ids: bool = False

    def values(self, variables: dict[str, Any]) -> list[Any]:
        values = []
        for argument in self.arguments:
            value = argument.value
            if argument.variable is not None:
                value = variables.get(argument.variable, value)
            if value is None and argument.required:
                raise STEP_ASIDE
            values.append(value)
        return values

    async def resolve(self, context: Any, values: list[Any]) -> Any:
        """The field's value before completion; raises what the field fails with."""
        await authorize(context, *self.requirement)
        if self.stored_ids:
            with context.reading_stored():
                found = await self.call(context, *values)
        else:
            found = await self.call(context, *values)
        if self.filters is not None:
            filters = {self.arguments[at].name: values[at] for at in self.filters}
            tell_list(found, self.field, filters)
        return found


@dataclass(frozen=True)
class DirectPlan:
    roots: tuple[DirectRoot, ...]


@dataclass(frozen=True)
class DirectOutcome:
    """The data of the operation (None when a non-null root field failed) and the root
    fields that failed with what each raised, in the order graphql-core reports them."""

    data: dict[str, Any] | None
    failures: list[tuple[DirectRoot, Exception]]


class Propagated(Exception):  # a signal: a non-null root field failed
    def __init__(self, root: DirectRoot, error: Exception) -> None:
        self.root, self.error = root, error


async def run_direct(plan: DirectPlan, context: Any, variables: dict[str, Any]) -> DirectOutcome:
    """Run the plan as graphql-core runs a query's root fields: all at once; a nullable
    field's failure is recorded as it happens and leaves null; a non-null field's failure
    nulls the whole data and cancels the fields still running. Raises StepAside when
    graphql-core must answer instead."""
    roots = plan.roots
    arguments = [root.values(variables) for root in roots]
    failures: list[tuple[DirectRoot, Exception]] = []

    async def field(root: DirectRoot, values: list[Any]) -> Any:
        try:
            found = await root.resolve(context, values)
        except Exception as error:  # the field's error (access, input, not found...)
            if not root.nullable:
                raise Propagated(root, error) from None
            failures.append((root, error))
            return None
        try:
            return root.complete(found)
        except Exception:  # graphql-core completes it again, exactly
            raise STEP_ASIDE from None

    try:
        if len(roots) == 1:
            values = [await field(roots[0], arguments[0])]
        else:
            values = await gather_cancelling(
                [field(root, args) for root, args in zip(roots, arguments, strict=True)]
            )
    except Propagated as propagated:
        return DirectOutcome(None, [*failures, (propagated.root, propagated.error)])
    return DirectOutcome(
        {root.key: value for root, value in zip(roots, values, strict=True)}, failures
    )


async def gather_cancelling(awaitables: list[Awaitable[Any]]) -> list[Any]:
    """graphql-core's `gather_with_cancel`: the first exception cancels the rest."""
    futures = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    try:
        return await asyncio.gather(*futures)
    except Exception:
        for future in futures:
            if not future.done():
                future.cancel()
        await asyncio.gather(*futures, return_exceptions=True)
        raise
