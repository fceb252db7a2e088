"""Whether the database lets this process open change streams at all.

A standalone server refuses `$changeStream` (40573, "only supported on replica sets"),
and so may a server that does not know the stage (40324) or a hosted tier out of
streams (Atlas allows 5 to 100 open change streams per cluster, by tier; floorgate opens
up to two per process: the read cache's, `storage.cache.change_watch`, and the live
changes', `storage.attributes.hub`). Such a refusal is not an outage: it stays until
the deployment changes. Each stream reports here whether its last attempt to open was
refused; while one is, the read cache serves nothing (reads go to the database, so they
stay correct) and the live routes answer 503 with the reason instead of a stream that
would deliver nothing (docs/deploy.md, "Change streams").
"""

from __future__ import annotations

from pymongo.errors import OperationFailure

# Server error codes that mean "no change stream here", whatever is retried.
REFUSED_CODES = frozenset(
    {
        40573,  # IllegalOperation: $changeStream only on replica sets (a standalone server)
        40324,  # unrecognized pipeline stage name '$changeStream'
        115,  # CommandNotSupported
    }
)
ATLAS_ERROR = 8000  # Atlas's generic refusal: a refusal of streams when it names them
# The errors that mean "try again": a retryable or resumable one is an outage, not this.
TRANSIENT_LABELS = ("RetryableWriteError", "ResumableChangeStreamError")


def refusal(error: BaseException) -> str | None:
    """The database's reason when `error` refused to open a change stream for good,
    else None (an outage, a timeout: the stream is tried again as usual)."""
    if not isinstance(error, OperationFailure):
        return None
    if any(error.has_error_label(label) for label in TRANSIENT_LABELS):
        return None
    details = error.details or {}
    message = str(details.get("errmsg") or error)
    if error.code in REFUSED_CODES or (
        error.code == ATLAS_ERROR and "change" in message.lower() and "stream" in message.lower()
    ):
        return f"{message} (code {error.code})"
    return None


class StreamSupport:
    """The refusals of the process's change streams, by stream name."""

    def __init__(self) -> None:
        self._refused: dict[str, str] = {}

    @property
    def refused(self) -> str | None:
        """Why change streams are unavailable (None while every stream may open)."""
        return next(iter(self._refused.values()), None)

    def refuse(self, stream: str, reason: str) -> None:
        self._refused[stream] = reason

    def opened(self, stream: str) -> None:
        self._refused.pop(stream, None)
