"""How a name and a query are compared: folded (case and accents gone) and cut into
words, so that "Café" is found by "cafe" and "LL21D" by "ll21"."""

from __future__ import annotations

import re
import unicodedata

from resolvers.errors import FieldErrors
from resolvers.limits import MAX_SEARCH_CHARS

# A word: a run of letters and digits (any script); everything else separates words.
WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Case- and accent-insensitive form: compatibility-decomposed, combining marks
    dropped, case-folded ("Café" -> "cafe")."""
    if text.isascii():
        return text.lower()  # the same, sooner: most names are ASCII
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return bare.casefold()


def words(text: str) -> list[str]:
    """The folded words of `text`, in order ("Room 2.04, Level 1" -> room, 2, 04, level, 1)."""
    return WORD.findall(fold(text))


def phrase(text: str) -> str:
    """The folded words joined by one space: what an exact match compares."""
    return " ".join(words(text))


def allowed_edits(term: str) -> int:
    """Typos forgiven in a term (issue 47): none below 4 characters, one from 4 to 7,
    two from 8."""
    if len(term) >= 8:
        return 2
    return 1 if len(term) >= 4 else 0


def check_text(errors: FieldErrors, name: str, q: str | None) -> None:
    """A search text (`search`'s `q`, a route's `to.nearest.q`): 1 to MAX_SEARCH_CHARS
    characters, with a letter or a digit (else it finds nothing, always)."""
    if q is None or not 1 <= len(q) <= MAX_SEARCH_CHARS:
        errors.add(name, f"must be from 1 to {MAX_SEARCH_CHARS} characters")
    elif not phrase(q):
        errors.add(name, "must contain a letter or a digit")
