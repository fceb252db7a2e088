"""Stable `uid`s, handed out during the walk in document order (docs/unit-map-svg.md).

An element's `id` when it has one; a repeated id gets `~2`, `~3`, ...; an element
without one gets `e<N>`, N being its 1-based position among all elements of the input
in document order (the root is 1; skipped elements count). Should two elements come to
the same uid anyway (an element whose id is "e7" after the seventh element, which had
none), the first in document order keeps it and the later one gets the next free `~k`.

Content drawn by a `use` gets `<use uid>/<local>`: `local` is the element's id, or
`e<k>` with k its position inside the referenced element (which is 1), made unique the
same way within that drawing, and the whole uid unique in the document.
"""

from __future__ import annotations


class UidScope:
    """Positions and names of one document, or of the inside of one `use` drawing."""

    __slots__ = ("names", "position", "prefix", "taken")

    def __init__(self, taken: set[str], prefix: str = "", position: int = 0) -> None:
        self.taken = taken  # every uid of the document so far
        self.prefix = prefix
        self.position = position
        self.names = taken if not prefix else set()  # local names of this scope

    def next(self, element_id: str | None) -> str:
        """The uid of the next element in document order."""
        self.position += 1
        names = self.names
        if element_id:
            local = element_id if element_id not in names else next_free(element_id, names)
        else:
            local = f"e{self.position}"
            if local in names:
                local = next_free(local, names)
        names.add(local)
        if not self.prefix:
            return local
        uid = self.prefix + local
        if uid in self.taken:
            uid = next_free(uid, self.taken)
        self.taken.add(uid)
        return uid

    def skip(self, element_id: str | None) -> None:
        """A skipped element: it counts for positions, and its id for repeats."""
        self.position += 1
        if element_id:
            names = self.names
            names.add(element_id if element_id not in names else next_free(element_id, names))


def next_free(base: str, taken: set[str]) -> str:
    """`base~2`, `base~3`, ...: the first not in `taken`."""
    number = 2
    while f"{base}~{number}" in taken:
        number += 1
    return f"{base}~{number}"
