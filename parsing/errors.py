"""The error of the SVG parser: input that is not a usable unit map.

(Georeferences have their own, `parsing.geo.georeference.GeoreferenceError`.)
"""

from __future__ import annotations

from typing import Protocol


class SvgError(ValueError):
    """Malformed, unsafe or over-limit SVG. `line`/`column` come from the XML parser."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        self.message = message
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __reduce__(self) -> tuple[type[SvgError], tuple[str, int | None, int | None]]:
        """Pickled whole (a parse in a worker process raises it to the server)."""
        return SvgError, (self.message, self.line, self.column)

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        where = f"line {self.line}" + (f", column {self.column}" if self.column else "")
        return f"{self.message} ({where})"


class Stopped(Exception):
    """The caller set the parse's `stop` event: nobody waits for the result any more."""


class Stop(Protocol):
    """What the parser polls to know it should give up (a `threading.Event`)."""

    def is_set(self) -> bool: ...
