"""The E17 location `tags` grammar (docs/contract.md, Values): every accepted form, every
refused one, the length limit, and how terms hold on a location's tags."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.errors import FieldErrors
from resolvers.limits import MAX_FILTER_LENGTH
from resolvers.tag_filter import Op, Term, matches, parse_filter, parse_term
from tests.fixtures import LOCATIONS

HINT = "use key, -key, key==value or key!=value"


def bad(term: str) -> str:
    return f"invalid term '{term}': {HINT}"


def tags(**pairs: str) -> list[dict[str, str]]:
    """Stored tags (as the database holds them) from keyword pairs; `__` stands for `:`."""
    return [{"key": key.replace("__", ":"), "value": value} for key, value in pairs.items()]


def parse(text: str | None, name: str = "tags") -> tuple[list[Term], dict[str, list[str]]]:
    errors = FieldErrors()
    terms = parse_filter(errors, name, text)
    return terms, errors.fields


# ---------------------------------------------------------------- parse_term

ACCEPTED = [
    ("amenity", Term(Op.PRESENT, "amenity")),
    ("-amenity", Term(Op.ABSENT, "amenity")),
    ("amenity==gym", Term(Op.EQUALS, "amenity", "gym")),
    ("amenity!=gym", Term(Op.DIFFERS, "amenity", "gym")),
    # Keys may contain `:` (any number of them).
    ("svc:amenity", Term(Op.PRESENT, "svc:amenity")),
    ("-svc:amenity", Term(Op.ABSENT, "svc:amenity")),
    ("svc:amenity==yes", Term(Op.EQUALS, "svc:amenity", "yes")),
    ("svc:amenity!=yes", Term(Op.DIFFERS, "svc:amenity", "yes")),
    ("a:b:c==d:e", Term(Op.EQUALS, "a:b:c", "d:e")),
    (":", Term(Op.PRESENT, ":")),
    # Keys and values are case-folded.
    ("SVC:Amenity", Term(Op.PRESENT, "svc:amenity")),
    ("-SVC:AMENITY", Term(Op.ABSENT, "svc:amenity")),
    ("SVC:AMENITY==YES", Term(Op.EQUALS, "svc:amenity", "yes")),
    ("Svc:Amenity!=Yes", Term(Op.DIFFERS, "svc:amenity", "yes")),
    ("STRASSE==Straße", Term(Op.EQUALS, "strasse", "strasse")),
    ("ÄRA==Öl", Term(Op.EQUALS, "ära", "öl")),
    # Spaces around keys and values are ignored; spaces inside them are kept.
    ("amenity == gym", Term(Op.EQUALS, "amenity", "gym")),
    ("amenity  !=  gym", Term(Op.DIFFERS, "amenity", "gym")),
    ("fitness centre==open air", Term(Op.EQUALS, "fitness centre", "open air")),
    ("-swimming pool", Term(Op.ABSENT, "swimming pool")),
    # `-` only negates in front; inside a key or at the start of a value it is text.
    ("a-b", Term(Op.PRESENT, "a-b")),
    ("-a-b", Term(Op.ABSENT, "a-b")),
    ("level==-1", Term(Op.EQUALS, "level", "-1")),
    ("level!=-1", Term(Op.DIFFERS, "level", "-1")),
    # Only `,`, and `=` as the first character, are excluded from a value.
    ("url==a=b", Term(Op.EQUALS, "url", "a=b")),
    ("note!=!x", Term(Op.DIFFERS, "note", "!x")),
    ("k==x y:z", Term(Op.EQUALS, "k", "x y:z")),
]


@pytest.mark.parametrize(("text", "term"), ACCEPTED, ids=[text for text, _ in ACCEPTED])
def test_parse_term_accepts(text, term):
    assert parse_term(text) == term


REFUSED = [
    "",  # an empty term
    "-",  # a negation without a key
    "--a",  # a key starts with neither `-` ...
    "-=a",
    "==x",  # ... nor an operator
    "!=x",
    "!a",  # `!` alone is no negation
    "a!b",
    "a=b",  # one `=` is no operator
    "a= =b",
    "a==",  # an operator needs a value
    "a!=",
    "a== ",
    "a!=   ",
    "-a==b",  # negation and comparison do not mix
    "-a!=b",
    "a===b",  # a value does not start with `=`
    "a!==b",
    "a==b,c",  # one term holds no comma
    "a,b",
    " a",  # parse_term is given stripped terms; parse_filter strips them
]


@pytest.mark.parametrize("text", REFUSED, ids=[repr(text) for text in REFUSED])
def test_parse_term_refuses(text):
    assert parse_term(text) is None


# ---------------------------------------------------------------- parse_filter

FILTERS = [
    (None, []),
    ("", []),
    ("   ", []),
    ("amenity", [Term(Op.PRESENT, "amenity")]),
    (
        "svc:amenity==yes,-amenity",
        [Term(Op.EQUALS, "svc:amenity", "yes"), Term(Op.ABSENT, "amenity")],
    ),
    (
        " a , -B ,c==D,  e != F ",
        [
            Term(Op.PRESENT, "a"),
            Term(Op.ABSENT, "b"),
            Term(Op.EQUALS, "c", "d"),
            Term(Op.DIFFERS, "e", "f"),
        ],
    ),
    # The same term twice is allowed (and means the same as once).
    ("a,a", [Term(Op.PRESENT, "a"), Term(Op.PRESENT, "a")]),
    # Contradictions are valid filters; they match nothing.
    ("a,-a", [Term(Op.PRESENT, "a"), Term(Op.ABSENT, "a")]),
]


@pytest.mark.parametrize(("text", "terms"), FILTERS, ids=[repr(text) for text, _ in FILTERS])
def test_parse_filter(text, terms):
    assert parse(text) == (terms, {})


BAD_FILTERS = [
    ("a=b", [bad("a=b")]),
    ("a,,b", [bad("")]),
    (",", [bad(""), bad("")]),
    ("a,", [bad("")]),
    ("-", [bad("-")]),
    ("--a", [bad("--a")]),
    ("==x", [bad("==x")]),
    ("a==", [bad("a==")]),
    ("-a==b", [bad("-a==b")]),
    ("a===b", [bad("a===b")]),
    ("!a", [bad("!a")]),
    # The message names the term without its surrounding spaces; every bad term is named,
    # in order, and the good ones do not hide them.
    ("  a=b  ", [bad("a=b")]),
    ("ok, !a ,fine==1, b== ,-c!=d", [bad("!a"), bad("b=="), bad("-c!=d")]),
]


@pytest.mark.parametrize(
    ("text", "messages"), BAD_FILTERS, ids=[repr(text) for text, _ in BAD_FILTERS]
)
def test_parse_filter_reports_each_bad_term(text, messages):
    terms, fields = parse(text)
    assert fields == {"tags": messages}
    assert len(terms) == len(text.split(",")) - len(messages)


def test_parse_filter_reports_under_the_given_name():
    assert parse("a=b", name="filter") == ([], {"filter": [bad("a=b")]})


def test_length_limit():
    assert MAX_FILTER_LENGTH == 255
    longest = "k" * 255
    assert parse(longest) == ([Term(Op.PRESENT, longest)], {})
    many = ",".join(["a"] * 128)  # 255 characters
    assert len(parse(many)[0]) == 128
    assert parse("k" * 256) == ([], {"tags": ["must be at most 255 characters"]})
    # Spaces count: the limit is on the value as sent.
    assert parse("a" + " " * 255) == ([], {"tags": ["must be at most 255 characters"]})
    # Over the limit only the length is reported, not the terms.
    assert parse("a=b," * 64) == ([], {"tags": ["must be at most 255 characters"]})


def test_a_blank_value_over_the_limit_is_refused():
    assert parse(" " * 256) == ([], {"tags": ["must be at most 255 characters"]})


# ---------------------------------------------------------------- matches

FIXTURE_TAGS = {doc["_id"]: doc["tags"] for doc in LOCATIONS if doc["unit_map_id"] == "map-1"}


def matching(text: str) -> list[str]:
    terms, fields = parse(text)
    assert fields == {}
    return [id_ for id_, stored in FIXTURE_TAGS.items() if matches(terms, stored)]


ALL = ["loc-101", "loc-gym", "loc-mail", "loc-pool"]
MATCHES = [
    ("", ALL),
    ("svc:amenity", ["loc-gym", "loc-mail", "loc-pool"]),
    ("-svc:amenity", ["loc-101"]),
    # loc-gym stores `Yes`: values match case-insensitively.
    ("svc:amenity==yes", ["loc-gym", "loc-pool"]),
    ("SVC:AMENITY==YES", ["loc-gym", "loc-pool"]),
    ("svc:amenity==Yes", ["loc-gym", "loc-pool"]),
    # `!=` holds when the tag is absent or different.
    ("svc:amenity!=yes", ["loc-101", "loc-mail"]),
    ("svc:amenity!=no", ["loc-101", "loc-gym", "loc-pool"]),
    ("svc:amenity==yes,-amenity", ["loc-pool"]),
    ("svc:amenity==yes,amenity", ["loc-gym"]),
    ("leisure,amenity!=gym", ["loc-pool"]),
    ("amenity,-leisure", ["loc-mail"]),
    ("svc:type==unit,svc:id==U-001", ["loc-101"]),
    ("room==Apartment,indoor", ["loc-101"]),
    # Exact: no prefix, substring or key-as-value matches.
    ("svc:id==u-00", []),
    ("amenity==gy", []),
    ("svc", []),
    ("amenity==amenity", []),
    ("nothing", []),
    ("-nothing", ALL),
    ("nothing!=x", ALL),
    ("svc:amenity==yes,svc:amenity!=yes", []),
    ("leisure,-leisure", []),
]


@pytest.mark.parametrize(("text", "ids"), MATCHES, ids=[text or "<empty>" for text, _ in MATCHES])
def test_matches_fixture_locations(text, ids):
    assert matching(text) == ids


def test_no_terms_match_everything():
    assert matches([], [])
    assert matches([], tags(a="1"))


def test_a_location_without_tags():
    assert matches(parse("-a,a!=1")[0], [])
    assert not matches(parse("a")[0], [])
    assert not matches(parse("a==1")[0], [])


def test_stored_keys_and_values_are_folded_too():
    stored = tags(SVC__Amenity="YES", Room="Straße")
    assert matches(parse("svc:amenity==yes,room==STRASSE")[0], stored)
    assert not matches(parse("-svc:amenity")[0], stored)


def test_keys_that_differ_only_in_case_are_both_seen():
    stored = tags(A="1", a="2")
    assert matches(parse("a==1")[0], stored)
    assert matches(parse("a==2")[0], stored)


# ---------------------------------------------------------------- properties

ASCII_KEY = st.from_regex(r"[a-z][a-z0-9:_-]{0,10}", fullmatch=True)
ASCII_VALUE = st.from_regex(r"[a-z0-9][a-z0-9:_ .-]{0,10}[a-z0-9]?", fullmatch=True)


def stored_tags(pairs: dict[str, str]) -> list[dict[str, str]]:
    return [{"key": key, "value": value} for key, value in pairs.items()]


TAG_DICTS = st.dictionaries(
    st.sampled_from(["a", "B", "c:d", "E:F"]), st.sampled_from(["x", "Y", "z z"]), max_size=4
)


@given(TAG_DICTS, st.sampled_from(["a", "b", "C:D", "e:f", "g"]))
def test_minus_key_is_the_negation_of_key(pairs, key):
    stored = stored_tags(pairs)
    assert matches(parse(f"-{key}")[0], stored) is not matches(parse(key)[0], stored)


@given(TAG_DICTS, st.sampled_from(["a", "b", "C:D", "e:f"]), st.sampled_from(["x", "y", "Z Z"]))
def test_differs_is_the_negation_of_equals(pairs, key, value):
    stored = stored_tags(pairs)
    equal = matches(parse(f"{key}=={value}")[0], stored)
    assert matches(parse(f"{key}!={value}")[0], stored) is not equal
    # `==` implies presence.
    assert not equal or matches(parse(key)[0], stored)


@given(TAG_DICTS, st.lists(st.sampled_from(["a", "-b", "c:d==y", "e:f!=x", "-a"]), max_size=4))
def test_terms_are_anded(pairs, texts):
    stored = stored_tags(pairs)
    each = [matches(parse(text)[0], stored) for text in texts]
    assert matches(parse(",".join(texts))[0], stored) is all(each)


@given(ASCII_KEY, ASCII_VALUE)
def test_any_key_and_value_round_trip(key, value):
    assert parse_term(key) == Term(Op.PRESENT, key)
    assert parse_term(f"-{key}") == Term(Op.ABSENT, key)
    assert parse_term(f"{key}=={value}") == Term(Op.EQUALS, key, value.strip())
    assert parse_term(f"{key.upper()} != {value.upper()}") == Term(Op.DIFFERS, key, value.strip())


@given(ASCII_KEY, ASCII_VALUE)
def test_a_term_matches_its_own_tag_whatever_the_case(key, value):
    value = value.strip()
    stored = stored_tags({key.upper(): value.upper()})
    assert matches(parse(f"{key}=={value}")[0], stored)
    assert matches(parse(key.swapcase())[0], stored)
    assert not matches(parse(f"{key}!={value.swapcase()}")[0], stored)


@given(st.text(max_size=300))
def test_any_text_is_terms_or_named_errors(text):
    terms, fields = parse(text)
    if len(text) > MAX_FILTER_LENGTH:
        assert (terms, fields) == ([], {"tags": ["must be at most 255 characters"]})
    elif text.strip() == "":
        assert (terms, fields) == ([], {})
    else:
        assert len(terms) + len(fields.get("tags", [])) == len(text.split(","))
