"""The cache of compiled plans: one per parsed document, operation and value of the
variables that `@skip`/`@include` read (`schema.execution.compiled` makes them), kept
within a byte budget in the schema's own `extensions`."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    SelectionSetNode,
    Source,
    ValueNode,
    VariableNode,
)
from graphql.execution.collect_fields import FragmentDetails
from graphql.execution.values import VariableValues

from resolvers.limits import COMPILED_PLAN_BYTES, COMPILED_PLANS
from schema.execution.bounded import ByteLRU
from schema.execution.compiled import Builder, Plan, Unsupported
from schema.execution.operation_limits import rough_size

log = logging.getLogger("floorgate.graphql")


def directive_variables(
    operation: OperationDefinitionNode, fragments: dict[str, FragmentDetails]
) -> tuple[str, ...]:
    """Names of the variables that `@skip`/`@include` read: the plan depends on their values."""
    names: set[str] = set()

    def visit(selection_set: SelectionSetNode | None) -> None:
        for selection in selection_set.selections if selection_set else ():
            for directive in selection.directives or ():
                for argument in directive.arguments or ():
                    names.update(variables_in(argument.value))
            visit(getattr(selection, "selection_set", None))

    visit(operation.selection_set)
    for details in fragments.values():
        visit(details.definition.selection_set)
    return tuple(sorted(names))


def variables_in(value: ValueNode) -> list[str]:
    if isinstance(value, VariableNode):
        return [value.name.value]
    found: list[str] = []
    for item in getattr(value, "values", None) or ():
        found.extend(variables_in(item))
    for member in getattr(value, "fields", None) or ():
        found.extend(variables_in(member.value))
    return found


EXTENSION = "floorgate-plans"
VARIANTS = 8  # plans of one document for different @skip/@include values; then graphql-core


class Plans:
    """The plans of one schema, by parsed document, operation and directive values,
    least recently used dropped first: at most COMPILED_PLANS documents, and within
    COMPILED_PLAN_BYTES. A plan holds its document's nodes, and through their locations
    the whole token list, so an entry counts its document's rough size. Entries are keyed
    by the identity of the document's source (which the entry keeps), not by its text: the
    parse cache hands back the same document for the same text."""

    def __init__(self, size: int = COMPILED_PLANS, max_bytes: int = COMPILED_PLAN_BYTES) -> None:
        self.size = size
        self.documents: ByteLRU[tuple[int, str | None], PlanEntry] = ByteLRU(max_bytes)

    def get(
        self,
        schema: GraphQLSchema,
        operation: OperationDefinitionNode,
        fragments: dict[str, FragmentDetails],
        variable_values: VariableValues,
        hide_suggestions: bool,
    ) -> Plan | None:
        """The operation's plan, made on first use; None when graphql-core must run it."""
        if operation.loc is None:
            return None
        source = operation.loc.source
        name = operation.name.value if operation.name else None
        key = (id(source), name)
        entry = self.documents.get(key)
        if entry is None or entry.source is not source:
            entry = PlanEntry(source, directive_variables(operation, fragments), {})
            self.documents.put(key, entry, ENTRY_BYTES + rough_size(operation))
            if len(self.documents) > self.size:
                self.documents.pop(next(iter(self.documents.entries)))
        coerced = variable_values.coerced
        values = tuple(coerced.get(name) for name in entry.used)
        plans = entry.plans
        if values in plans:
            return plans[values]
        if len(plans) >= VARIANTS:
            return None
        try:
            plan: Plan | None = Builder(
                schema, fragments, variable_values, operation, hide_suggestions
            ).build()
        except (Unsupported, GraphQLError, RecursionError) as reason:
            log.debug("graphql-core runs operation %s: %s", name or "(anonymous)", reason)
            plan = None
        except Exception:  # a gap of the compiler must cost speed, never an answer
            log.warning(
                "graphql-core runs operation %s: no plan", name or "(anonymous)", exc_info=True
            )
            plan = None
        plans[values] = plan
        return plan


@dataclass(eq=False)
class PlanEntry:
    source: Source  # kept, so that its id stays its own
    used: tuple[str, ...]  # variables that @skip/@include read
    plans: dict[tuple[Any, ...], Plan | None]


ENTRY_BYTES = 4096  # a plan's own objects beyond its document (rough)


def precompile(schema: GraphQLSchema, document: DocumentNode) -> Plan | None:
    """The plan of a document's only operation, made now (REST's persisted documents,
    at start). A document whose directives read variables is planned on first use."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = {
        d.name.value: FragmentDetails(d)
        for d in document.definitions
        if isinstance(d, FragmentDefinitionNode)
    }
    if len(operations) != 1 or directive_variables(operations[0], fragments):
        return None
    return plans_of(schema).get(schema, operations[0], fragments, VariableValues({}, {}), False)


def plans_of(schema: GraphQLSchema) -> Plans:
    """The plan cache of a schema, kept in the schema's own `extensions`."""
    found = schema.extensions.get(EXTENSION)
    if found is None:
        found = schema.extensions[EXTENSION] = Plans()
    return found
