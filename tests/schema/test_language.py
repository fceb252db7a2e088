"""What a kept /graphql answer is keyed by of `@lang(tag: $tag)` (issue 63): the language
chosen where `$tag` is read by `@lang` alone, the text sent where the document reads it
elsewhere too (there it is input, and may change the answer)."""

from __future__ import annotations

from graphql import OperationDefinitionNode, parse

from schema.language import keyed_variables


def keyed(document: str, variables: dict[str, object] | None) -> dict[str, object] | None:
    parsed = parse(document)
    definition = parsed.definitions[0]
    assert isinstance(definition, OperationDefinitionNode)
    return keyed_variables(parsed, definition, variables, "de")


def test_a_tag_read_by_lang_alone_is_keyed_by_the_language_chosen():
    document = "query Q($tag: String!, $id: ID!) @lang(tag: $tag) { asset(id: $id) { name } }"
    sent = {"tag": "de-x-abcdefgh", "id": "a"}
    assert keyed(document, sent) == {"tag": "de", "id": "a"}
    assert sent == {"tag": "de-x-abcdefgh", "id": "a"}  # what runs is what was sent


def test_a_tag_read_elsewhere_or_not_a_variable_keeps_its_text():
    elsewhere = (
        "query Q($tag: String!) @lang(tag: $tag) { ...F }\n"
        "fragment F on Query { search(q: $tag) { id } }"
    )
    assert keyed(elsewhere, {"tag": "de-x-a"}) == {"tag": "de-x-a"}
    literal = 'query Q($tag: String!) @lang(tag: "de-CH") { asset(id: $tag) { name } }'
    assert keyed(literal, {"tag": "de-x-a"}) == {"tag": "de-x-a"}
    assert keyed("query Q($tag: String) @lang(tag: $tag) { a }", {"tag": None}) == {"tag": None}
    assert keyed("query Q($tag: String) @lang(tag: $tag) { a }", None) is None
