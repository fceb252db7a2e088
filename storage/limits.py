"""Limits of the data itself, shared by the importer and the API (which imports them)."""

from __future__ import annotations

import re
from datetime import timedelta

MAX_ID_LENGTH = 255
# The language of a dataset's plain names, and the default of its name objects, when the
# dataset does not say (`language`): the service's own default (FLOORGATE_DEFAULT_LANGUAGE).
DATASET_LANGUAGE = "en"
# The spec's pattern, as written there (messages and the OpenAPI document quote it).
# Use REFERENCE_KEY with `fullmatch`: plain `$` would accept a trailing "\n".
REFERENCE_KEY_PATTERN = "^[a-z]{1}[a-z0-9-]{1,254}$"
REFERENCE_KEY = re.compile(REFERENCE_KEY_PATTERN)

# Values per `$in` of a read or delete: the embedded server matches `$in` in time
# quadratic in its length (1,000 ids: 1.2 s; 10 x 100: 0.16 s), so lists go by 100.
IN_CHUNK = 100

# Documents one import writes in one transaction (records, plus each drawn map's levels
# and units). A larger import is committed per asset; an asset larger than this is
# staged and switched in (`storage.imports.switches`): the embedded server stalls on a
# transaction whose writes near a fifth of its cache, and MongoDB aborts one older than
# 60 s. Measured in docs/performance.md (`import_large`); FLOORGATE_IMPORT_MAX_DOCUMENTS.
IMPORT_TRANSACTION_DOCUMENTS = 25_000
# Operations per bulk write of an import, sent one after another in the same transaction:
# the server gets bounded requests, and the importer holds one batch's request at a time.
IMPORT_BATCH_OPERATIONS = 1_000
# A staged import (an asset past IMPORT_TRANSACTION_DOCUMENTS) is applied in transactions
# of at most this many operations and documents written (and STAGED_BATCH_BYTES of them):
# 1,000 inserts commit in well under a second on the embedded server, whose other
# transactions wait for each of its statements and for its commit.
STAGED_BATCH_OPERATIONS = 1_000
STAGED_BATCH_BYTES = 8 * 1024 * 1024  # one staged batch is one document: under its 16 MiB
# The period of the switches in progress (`storage.cache.switch_gate`): a read trusts what
# its process knows of them at most two of these old (from a poll, every one and a half
# while reads come, or from an early empty answer of its change stream); an importer
# waits its request budget plus two of these after announcing a switch. 0.5 s until
# issue 45, when an idle process polled every 0.75 s beside the stream's answers.
SWITCH_POLL_SECONDS = 1.5

# How long an import waits for another import of the same asset (`floorgate import
# --wait`). Here, not in `storage.imports.importer`, so the CLI names it without importing the
# importer (and the SVG parser, numpy, shapely) at every start (issue 15, cold start).
IMPORT_WAIT_SECONDS = 600.0
# An import keeps at least this share of a stored map's units (`storage.imports.shrink`):
# a map with units that would have none, or lose more than half, refuses the import
# unless `--allow-shrink` is given (one unreadable file once emptied a venue's maps).
MAP_UNITS_KEPT_SHARE = 0.5
# `floorgate gc` keeps unnamed files younger than this (`--older-than`): an import stores
# a map's files before the documents that name them.
GC_GRACE = timedelta(hours=1)

# Persisted GraphQL documents (docs/graphql.md, "Persisted queries"): the store shared by
# every process holds at most this many documents and bytes (each its text's UTF-8 bytes
# and its 64-character hash; FLOORGATE_PERSISTED_QUERIES_MAX_COUNT, _MAX_BYTES). Past them
# an automatic registration evicts the least recently used automatic documents.
PERSISTED_QUERIES_MAX_COUNT = 10_000
PERSISTED_QUERIES_MAX_BYTES = 32 * 1024 * 1024
# Each process keeps the documents it uses in memory within this budget (keys included),
# and reads one from the database again after this long (a removal reaches every process
# within it; each read also moves the document's `last_used`).
PERSISTED_QUERY_CACHE_BYTES = 8 * 1024 * 1024
PERSISTED_QUERY_RECHECK_SECONDS = 30.0

# A parse worker (`storage.isolated`) still this large after giving memory back (a full
# collection and glibc's trim, after each task that grew it) is replaced, with its pool:
# an idle one is 40-60 MB, and one is back there after a 16 MiB drawing.
PARSE_WORKER_MAX_RSS_BYTES = 256 * 1024 * 1024
