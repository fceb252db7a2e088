"""The E17 location `tags` filter: comma-separated terms, all of which must hold (AND).

Terms (docs/contract.md, Values): `key` (tag present), `-key` (tag absent), `key==value`
(present and equal), `key!=value` (absent or different). Keys may contain `:`;
keys and values match exactly but case-insensitively. Anything else is refused
with the bad term named, so a typo never silently matches everything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from resolvers.errors import FieldErrors
from resolvers.validation import check_filter

# A key: no `,`, `=` or `!`, and it does not start with `-` (that is the negation).
KEY = r"[^,=!\s-][^,=!]*"
TERM = re.compile(rf"(?P<neg>-)?(?P<key>{KEY})(?:(?P<op>==|!=)(?P<value>[^,=][^,]*))?")


class Op(Enum):
    PRESENT = "present"
    ABSENT = "absent"
    EQUALS = "=="
    DIFFERS = "!="


@dataclass(frozen=True)
class Term:
    op: Op
    key: str  # case-folded
    value: str | None = None  # case-folded

    def holds(self, tags: dict[str, set[str]]) -> bool:
        """`tags`: the location's case-folded keys to their case-folded values (a set,
        since data imported before keys were unique case-insensitively may repeat one)."""
        if self.op is Op.PRESENT:
            return self.key in tags
        if self.op is Op.ABSENT:
            return self.key not in tags
        if self.op is Op.EQUALS:
            return self.value in tags.get(self.key, ())
        return self.value not in tags.get(self.key, ())


def parse_term(text: str) -> Term | None:
    """One term (already stripped of surrounding spaces), or None when it is malformed."""
    match = TERM.fullmatch(text)
    if match is None:
        return None
    key = match["key"].strip().casefold()
    value = match["value"]
    if value is not None:
        if match["neg"] or value.strip() == "":
            return None  # `-key==v` mixes two forms; `key== ` has no value
        op = Op.EQUALS if match["op"] == "==" else Op.DIFFERS
        return Term(op, key, value.strip().casefold())
    return Term(Op.ABSENT if match["neg"] else Op.PRESENT, key)


def parse_filter(errors: FieldErrors, name: str, text: str | None) -> list[Term]:
    """Every term of the filter; each malformed one is reported under `name`."""
    if not check_filter(errors, name, text):
        return []
    if text is None or text.strip() == "":
        return []
    terms: list[Term] = []
    for raw in text.split(","):
        term = parse_term(raw.strip())
        if term is None:
            errors.add(
                name,
                f"invalid term {raw.strip()!r}: use key, -key, key==value or key!=value",
            )
        else:
            terms.append(term)
    return terms


def folded_tags(tags: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    folded: dict[str, set[str]] = {}
    for tag in tags:
        folded.setdefault(str(tag["key"]).casefold(), set()).add(str(tag["value"]).casefold())
    return folded


def matches(terms: list[Term], tags: Iterable[dict[str, Any]]) -> bool:
    """Whether a location with these stored tags passes every term."""
    if not terms:
        return True
    folded = folded_tags(tags)
    return all(term.holds(folded) for term in terms)
