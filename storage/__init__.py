"""MongoDB access: the connection, collections and indexes, GridFS files, settings and
limits; wings for the read cache, datasets, imports, the files and imports of IMDF and
OSM venues, the demo and the embedded database server."""

from __future__ import annotations

import importlib.util
import sys


def _skip_pyopenssl_when_absent() -> None:
    """pymongo tries `pymongo.pyopenssl_context` on import, which imports
    `cryptography.x509` (about 50 ms of every start) before it finds that pyOpenSSL or
    service_identity is not installed, and then uses the standard `ssl` module. Where
    either is missing that attempt can only fail, so it is made to fail at once
    (a None in `sys.modules` is an ImportError to `import`): pymongo ends up exactly as
    it would have. Where both are installed, nothing changes. (Issue 15, cold start.)"""
    name = "pymongo.pyopenssl_context"
    if name in sys.modules or "pymongo" in sys.modules:
        return  # pymongo decided already
    if importlib.util.find_spec("OpenSSL") is None or (
        importlib.util.find_spec("service_identity") is None
    ):
        sys.modules[name] = None  # type: ignore[assignment]  # typeshed: modules only


_skip_pyopenssl_when_absent()
