"""The validation of a document the server has not seen before, faster than graphql-core's
`validate` and with exactly its errors (issue 36; docs/performance-history.md,
"Validating new documents").

graphql-core 3.3 keys the validation context's caches (fragment spreads of a selection
set, variable usages of an operation or fragment) by AST node, and its nodes are frozen
dataclasses that hash their whole subtree on every lookup: a lookup of an operation of
5,000 tokens hashes all of them, and the variable rules look it up again and again. Here
the same caches are keyed by identity, which for the nodes of one parse is the same key
(every node carries its own location, so no two distinct nodes compare equal). Variable
usages, a second walk of every operation and fragment with its own TypeInfo, walk only
the nodes whose text holds a `$`.

The rules are graphql-core's (and strawberry's), in the same order, visited in one
parallel pass as `validate` does (its body is copied from graphql-core 3.3.2); a rule that
cannot report anything on the document is left out (`needed_rules`), which changes neither
the errors nor their order, since each rule reports only for itself.
`tests/schema/test_validation_fast.py` compares the errors (messages, locations, order,
aborts) with graphql-core's `validate` and strawberry's `validate_document` on generated
documents, valid and not: a new graphql-core must keep it green.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from graphql import (
    DocumentNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    Node,
    ParallelVisitor,
    TypeInfo,
    TypeInfoVisitor,
    ValidationContext,
    Visitor,
    visit,
)
from graphql.language import SKIP, TokenKind, VisitorAction
from graphql.type import assert_valid_schema
from graphql.validation import (
    ASTValidationRule,
    KnownFragmentNamesRule,
    NoFragmentCyclesRule,
    NoUndefinedVariablesRule,
    NoUnusedFragmentsRule,
    NoUnusedVariablesRule,
    UniqueFragmentNamesRule,
    UniqueVariableNamesRule,
    VariablesAreInputTypesRule,
    VariablesInAllowedPositionRule,
)
from graphql.validation.validate import (
    FragmentNestingVisitor,
    ValidationAbortedError,
    query_document_keys_to_validate,
)
from graphql.validation.validation_context import (
    NodeWithSelectionSet,
    VariableUsage,
    VariableUsageVisitor,
)
from strawberry.schema.validation_rules.maybe_null import MaybeNullValidationRule
from strawberry.schema.validation_rules.one_of import OneOfInputValidationRule

MAX_ERRORS = 100  # graphql-core's default

# Rules that report only on fragment definitions or spreads, or only on variable
# definitions or variables: on a document without any, they cannot report.
FRAGMENT_RULES: frozenset[type[ASTValidationRule]] = frozenset(
    {KnownFragmentNamesRule, NoFragmentCyclesRule, NoUnusedFragmentsRule, UniqueFragmentNamesRule}
)
VARIABLE_RULES: frozenset[type[ASTValidationRule]] = frozenset(
    {
        NoUndefinedVariablesRule,
        NoUnusedVariablesRule,
        UniqueVariableNamesRule,
        VariablesAreInputTypesRule,
        VariablesInAllowedPositionRule,
    }
)


class ByIdentity(dict[int, Any]):
    """A dict keyed by the identity of its keys (nodes of one parse, alive while it is):
    a lookup costs one `id`, not a hash of the node's whole subtree."""

    def get(self, key: object, default: Any = None) -> Any:
        return super().get(id(key), default)

    def __getitem__(self, key: object) -> Any:
        return super().__getitem__(id(key))

    def __setitem__(self, key: object, value: Any) -> None:
        super().__setitem__(id(key), value)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(id(key))


class PrunedUsageVisitor(VariableUsageVisitor):
    """graphql-core's visitor of variable usages that skips every node whose text holds
    no `$` (no variable can be below it): the same usages in the same order, with types
    from the same TypeInfo, without walking every field of the document a second time."""

    def __init__(
        self,
        type_info: TypeInfo,
        fragment_definition: FragmentDefinitionNode | None,
        dollars: list[int],
    ) -> None:
        super().__init__(type_info, fragment_definition)
        self.dollars = dollars

    def enter(self, node: Node, *_args: Any) -> VisitorAction:
        loc = node.loc
        if loc is None:
            return None
        at = bisect_left(self.dollars, loc.start)
        return None if at < len(self.dollars) and self.dollars[at] < loc.end else SKIP


class FastValidationContext(ValidationContext):
    """graphql-core's context with its node-keyed caches keyed by identity, and variable
    usages found by `PrunedUsageVisitor`."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        # graphql-core types these as dicts keyed by node and only gets and sets items,
        # which ByIdentity does by the node's identity.
        self._fragment_spreads = ByIdentity()  # type: ignore[assignment]  # see above
        self._variable_usages = ByIdentity()  # type: ignore[assignment]  # see above
        self._recursive_variable_usages = ByIdentity()  # type: ignore[assignment]  # see above
        self.dollars: list[int] | None = None  # where each `$` of the text is

    def get_variable_usages(self, node: NodeWithSelectionSet) -> list[VariableUsage]:
        """As graphql-core's, with a visitor that walks only where variables are."""
        usages = self._variable_usages.get(node)
        if usages is None:
            if self.dollars is None:
                self.dollars = dollar_positions(self.document)
            fragment = node if isinstance(node, FragmentDefinitionNode) else None
            visitor = PrunedUsageVisitor(self._type_info, fragment, self.dollars)
            if visitor.enter(node) is None:  # (a skip of the root would fail the walk)
                visit(node, TypeInfoVisitor(self._type_info, visitor))
            usages = self._variable_usages[node] = visitor.usages
        return usages


def dollar_positions(document: DocumentNode) -> list[int]:
    """The offsets of the document's `$` tokens, in order (every variable starts with
    one); of a document without tokens, one at 0 so that nothing is skipped."""
    token = document.loc.start_token if document.loc is not None else None
    if token is None:
        return [0]
    found = []
    while token is not None:
        if token.kind is TokenKind.DOLLAR:
            found.append(token.start)
        token = token.next
    return found


def has_kinds(document: DocumentNode) -> tuple[bool, bool]:
    """(fragments, variables): whether the document defines or spreads any fragment, and
    whether it declares or uses any variable. Read from its tokens (`...` followed by a
    name is a spread; a `$` begins a variable), so nothing is missed that the parse made."""
    fragments = any(
        isinstance(definition, FragmentDefinitionNode) for definition in document.definitions
    )
    variables = False
    token = document.loc.start_token if document.loc is not None else None
    if token is None:  # a document built by hand: assume both
        return True, True
    while token is not None and not (fragments and variables):
        if token.kind is TokenKind.DOLLAR:
            variables = True
        elif (
            token.kind is TokenKind.SPREAD
            and token.next is not None
            and token.next.kind is TokenKind.NAME
            and token.next.value != "on"
        ):
            fragments = True
        token = token.next
    return fragments, variables


def needed_rules(
    document: DocumentNode, rules: Iterable[type[ASTValidationRule]]
) -> tuple[type[ASTValidationRule], ...]:
    """`rules` without those that cannot report on `document`, in their order."""
    fragments, variables = has_kinds(document)
    return tuple(
        rule
        for rule in rules
        if (fragments or rule not in FRAGMENT_RULES) and (variables or rule not in VARIABLE_RULES)
    )


def validate_fast(
    schema: GraphQLSchema, document: DocumentNode, rules: Iterable[type[ASTValidationRule]]
) -> list[GraphQLError]:
    """graphql-core's `validate(schema, document, rules)`, errors and order alike."""
    assert_valid_schema(schema)
    errors: list[GraphQLError] = []
    type_info = TypeInfo(schema)

    def on_error(error: GraphQLError) -> None:
        if len(errors) >= MAX_ERRORS:
            raise ValidationAbortedError(
                "Too many validation errors, error limit reached. Validation aborted."
            )
        errors.append(error)

    context = FastValidationContext(schema, document, type_info, on_error, False, True)
    visitors: list[Visitor] = [rule(context) for rule in needed_rules(document, rules)]
    fragments = {
        definition.name.value: definition
        for definition in document.definitions
        if isinstance(definition, FragmentDefinitionNode)
    }
    if fragments:
        visitors.insert(0, FragmentNestingVisitor(fragments))
    try:
        visit(
            document,
            TypeInfoVisitor(type_info, ParallelVisitor(visitors)),
            query_document_keys_to_validate,
        )
    except ValidationAbortedError as error:
        error.__context__ = None
        errors.append(error.with_traceback(None))
    except RecursionError:
        errors.append(ValidationAbortedError("Validation aborted."))
    return errors


STRAWBERRY_RULES = (MaybeNullValidationRule, OneOfInputValidationRule)


def validate_document(
    schema: GraphQLSchema, document: DocumentNode, rules: tuple[type[ASTValidationRule], ...]
) -> list[GraphQLError]:
    """strawberry's `validate_document` (the rules, then its own two), fast. (Its name
    too: what runs on the CPU pool is named by tests/schema/test_graphql_hardening.py.)"""
    return validate_fast(schema, document, (*rules, *STRAWBERRY_RULES))
