"""Languages on the GraphQL face (issue 51): a record's `names` in every language it has,
and the operation directive `@lang(tag:)` that asks for one (before `Accept-Language`
and `/graphql?lang=`; `schema/execution/running/request.py` reads it with the document)."""

from typing import Any

import strawberry
from graphql import (
    DocumentNode,
    OperationDefinitionNode,
    StringValueNode,
    VariableNode,
    Visitor,
    visit,
)
from strawberry.directive import DirectiveLocation

from storage.cache.names import names_of

Document = dict[str, Any]
LANG_DIRECTIVE = "lang"


@strawberry.type(description="A name in one language.")
class Name:
    language: str | None = strawberry.field(
        description="Its BCP 47 tag (`en`, `zh-Hant`); null for a record named in one "
        "language only, which the data does not tell."
    )
    text: str


def _names(root: strawberry.Parent[Document]) -> list[Name]:
    return [{"language": tag, "text": text} for tag, text in names_of(root)]  # type: ignore[misc]  # stored dicts: strawberry reads them by key


NAMES_FIELD: Any = strawberry.field(
    resolver=_names,
    description="Every name of the record, its default language's first; `name` is the "
    "one in the answer's language (`@lang`, `?lang=` or Accept-Language).",
)


@strawberry.directive(
    locations=[DirectiveLocation.QUERY, DirectiveLocation.MUTATION],
    name=LANG_DIRECTIVE,
    description="The language to answer in (a BCP 47 tag: `zh-Hant`, `de-CH`): names, "
    "directions. Before `?lang=` and Accept-Language; one floorgate does not speak "
    "answers in the default (the response's Content-Language says which).",
)
def lang(tag: str) -> None:
    """Read with the document (`operation_tag`), never resolved."""


def operation_tag(
    definition: OperationDefinitionNode, variables: dict[str, Any] | None
) -> str | None:
    """The tag `@lang` names on the operation (a literal or a variable's value), None
    without it; a value that is not a string is the validation's to refuse."""
    value = _tag_value(definition)
    if isinstance(value, StringValueNode):
        return value.value
    if isinstance(value, VariableNode):
        given = (variables or {}).get(value.name.value)
        return given if isinstance(given, str) else None
    return None


def _tag_value(definition: OperationDefinitionNode) -> object:
    """The node `@lang(tag:)` names on the operation, None without one."""
    for directive in definition.directives or ():
        if directive.name.value == LANG_DIRECTIVE:
            for argument in directive.arguments or ():
                return argument.value
    return None


def keyed_variables(
    document: DocumentNode,
    definition: OperationDefinitionNode,
    variables: dict[str, Any] | None,
    chosen: str,
) -> dict[str, Any] | None:
    """The variables a kept answer is keyed by: `@lang(tag: $tag)`'s value as `chosen`
    (the canonical tag of the language it chose), not the text sent, where nothing else
    in the document reads `$tag`; 2,000 spellings of German are then one answer (issue
    63). The walk is paid only by a document whose `@lang` takes a variable."""
    value = _tag_value(definition)
    if not isinstance(value, VariableNode) or not isinstance(
        (variables or {}).get(value.name.value), str
    ):
        return variables
    uses = _Uses(value.name.value)
    visit(document, uses)
    if uses.count > 2:  # declared, read by `@lang`, and read elsewhere: the answer's input
        return variables
    return {**(variables or {}), value.name.value: chosen}


class _Uses(Visitor):
    """Counts the occurrences of one variable (its declaration among them)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.count = name, 0

    def enter_variable(self, node: VariableNode, *_: object) -> None:
        self.count += node.name.value == self.name
