"""Languages on the GraphQL face (issue 51): a record's `names` in every language it has,
and the operation directive `@lang(tag:)` that asks for one (before `Accept-Language`
and `/graphql?lang=`; `rest/graphql_http/direct.py` reads it with the document)."""

from typing import Any

import strawberry
from graphql import OperationDefinitionNode, StringValueNode, VariableNode
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
    for directive in definition.directives or ():
        if directive.name.value != LANG_DIRECTIVE:
            continue
        for argument in directive.arguments or ():
            value = argument.value
            if isinstance(value, StringValueNode):
                return value.value
            if isinstance(value, VariableNode):
                given = (variables or {}).get(value.name.value)
                return given if isinstance(given, str) else None
    return None
