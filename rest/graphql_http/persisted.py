"""Persisted queries on /graphql, as Apollo clients send them (docs/graphql.md,
"Persisted queries"): `extensions.persistedQuery {version: 1, sha256Hash}` in a JSON POST
body, or as the URL-encoded JSON `extensions` parameter of a GET.

- A hash alone runs the document stored under it; unknown, it answers Apollo Server's
  `PersistedQueryNotFound` (200, `PERSISTED_QUERY_NOT_FOUND`), and Apollo Client's link
  sends the document with the hash. The hash must be the SHA-256 of the document (else
  `provided sha does not match query`, 400); with a valid key, the document is stored once
  it ran (a refusal, a parse or validation error, stores nothing), so later requests send
  the hash alone. The REST table's own documents are known by hash without being stored.
- A GET's successful answer carries an `ETag` (304 on `If-None-Match`), as REST's GETs.
- `FLOORGATE_PERSISTED_QUERIES=safelist`: only documents put on the list with `floorgate
  persisted-queries add`, and the REST table's, run, by hash or by text, except for a key
  with `service.admin` (GraphiQL); nothing is registered. `off`: Apollo's
  `PersistedQueryNotSupported` for any request with a hash, so its link stops sending them.

The store is shared by every process (`storage.persisted_queries`); each process keeps the
documents it used in a `ByteLRU` in front of it and reads one again after
`PERSISTED_QUERY_RECHECK_SECONDS`. A known hash leads to the document's text, whose parse,
validation and costs are the `DocumentCaches` entry of that text: nothing is parsed or
validated again, and the cost is still checked and charged on every request.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import orjson
from graphql import GraphQLError, OperationType, get_operation_ast
from pymongo.errors import PyMongoError
from starlette.requests import Request
from starlette.responses import Response

from resolvers.auth.permissions import ADMIN
from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode, invalid
from resolvers.limits import PARSE_ON_LOOP_CHARS
from rest.etags import REVALIDATE, body_etag, etag_matches
from rest.responses import error_response, json_response
from schema.execution.bounded import ByteLRU
from schema.execution.guard import DocumentCaches
from schema.execution.running.request import (
    NAME,
    UNNAMED,
    Operation,
    chosen_operation,
    parsed,
    prepared,
    several_operations,
)
from storage.cpu import run_cpu
from storage.limits import PERSISTED_QUERY_CACHE_BYTES, PERSISTED_QUERY_RECHECK_SECONDS
from storage.persisted_queries import Bounds, document_hash, find, register, stored_bytes

log = logging.getLogger("floorgate.graphql")

HASH = re.compile(r"[0-9a-f]{64}")
ENTRY_BYTES = 256  # a kept entry's own objects, beyond its text and hash (a rough figure)
MARKER = b"persistedQuery"
# Apollo Server's headers of its persisted-query errors: never kept, the next try may work.
NOT_KEPT = {"Cache-Control": "private, no-cache, must-revalidate"}


@dataclass
class Known:
    """A document known by its hash: its text, whether it may run in safelist mode, and
    when this process last read it from the database (monotonic; inf: the REST table's)."""

    text: str
    listed: bool
    checked: float


@dataclass(frozen=True)
class Asked:
    """A request with `extensions.persistedQuery`, resolved to its document: `params` as
    `schema.execution.running.request` reads them, whether the request carried the text, and
    whether the text is stored once it ran."""

    sha: str
    params: dict[str, Any]
    sent_text: bool
    register: bool


def refusal(code: ErrorCode, **message_args: str) -> Response:
    """A persisted-query error as a GraphQL answer (`data` null, one error), with its
    status; Apollo's not-found and not-supported are 200 and never kept."""
    error = ApiError(code, **cast("dict[str, Any]", message_args))  # message words only
    kept = NOT_KEPT if error.status == 200 else None
    return json_response({"data": None, "errors": [error.formatted]}, error.status, kept)


def conditional(content: bytes, request: Request, more: dict[str, str]) -> Response:
    """A GET's successful answer with its tag, or 304 when `If-None-Match` names it
    (`rest/etags.py`, as REST's GETs); `more` headers on both (its language's)."""
    etag = body_etag(content)
    headers = {"ETag": f'"{etag}"', "Cache-Control": REVALIDATE, **more}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(content, headers=headers, media_type="application/json")


NOT_JSON: Any = object()


def decode(raw: bytes) -> Any:
    """The JSON value of `raw`, or NOT_JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return NOT_JSON


class PersistedQueries:
    """The persisted-query protocol of one app: its mode, the shared store, the process's
    kept documents and the REST table's."""

    def __init__(self, services: Services, table_documents: Iterable[str] = ()) -> None:
        """`table_documents`: what the REST table runs (rest/app.py passes them, so this
        package does not reach into rest/v1), known by their hash in every mode."""
        settings = services.settings
        self.mode = settings.persisted_queries
        self.store = services.store
        self.bounds = Bounds(
            settings.persisted_queries_max_count, settings.persisted_queries_max_bytes
        )
        self.max_document_bytes = settings.graphql_max_document_bytes
        self.kept: ByteLRU[str, Known] = ByteLRU(PERSISTED_QUERY_CACHE_BYTES)
        self.table = {
            document_hash(document): Known(document, True, float("inf"))
            for document in table_documents
        }

    def figures(self) -> dict[str, int]:
        """For `/readyz`: the documents this process keeps, bounded in bytes."""
        return self.kept.figures()

    async def params_of(self, request: Request) -> dict[str, Any] | None:
        """The request's members (`query`, `variables`, `operationName`, `extensions`),
        JSON-decoded; None when they cannot hold a persisted query (or, unless in safelist
        mode, when they hold none: a cheap look for the word first)."""
        if request.method == "GET":
            query = request.query_params
            if "extensions" not in query and self.mode != "safelist":
                return None
            params: dict[str, Any] = dict(query)
            for name in ("extensions", "variables"):
                if params.get(name):  # left as text when it is no JSON: refused below
                    found = decode(params[name].encode())
                    params[name] = params[name] if found is NOT_JSON else found
            return params
        # Safelist mode reads any body strawberry could run (it takes any type naming JSON).
        safelist = self.mode == "safelist"
        if not safelist and "application/json" not in request.headers.get("content-type", ""):
            return None
        body = await request.body()
        if MARKER not in body and not safelist:
            return None
        found = await run_cpu(decode, body) if len(body) > PARSE_ON_LOOP_CHARS else decode(body)
        return found if isinstance(found, dict) else None

    async def asked(self, request: Request, context: RequestContext) -> Asked | Response | None:
        """The request's persisted query resolved, a refusal, or None: not a persisted
        query (and, in safelist mode, a document allowed to run, or none at all)."""
        params = await self.params_of(request)
        if params is None:
            return None
        extensions = params.get("extensions")
        persisted = extensions.get("persistedQuery") if isinstance(extensions, dict) else None
        query = params.get("query")
        if persisted is None:
            if self.mode != "safelist" or not isinstance(query, str) or await self.admin(context):
                return None
            if not await self.may_run(await self.lookup(document_hash(query)), context):
                return refusal(ErrorCode.PERSISTED_QUERY_NOT_ALLOWED)
            return None
        if self.mode == "off":
            return refusal(ErrorCode.PERSISTED_QUERY_NOT_SUPPORTED)
        version = persisted.get("version") if isinstance(persisted, dict) else None
        if isinstance(version, bool) or version != 1:
            return refusal(ErrorCode.PERSISTED_QUERY_VERSION)
        sha = persisted.get("sha256Hash")
        sha = sha if isinstance(sha, str) and HASH.fullmatch(sha) else ""
        variables, name = params.get("variables"), params.get("operationName")
        if not isinstance(variables, dict | None):
            return error_response(invalid({"variables": ["must be a JSON object"]}))
        if not isinstance(name, str | None):
            return error_response(invalid({"operationName": ["must be a string"]}))
        if query is None:
            known = await self.lookup(sha)
            if self.mode == "safelist" and not await self.may_run(known, context):
                return refusal(ErrorCode.PERSISTED_QUERY_NOT_ALLOWED)
            if known is None:
                return refusal(ErrorCode.PERSISTED_QUERY_NOT_FOUND)
            return Asked(
                sha,
                {"query": known.text, "variables": variables, "operationName": name},
                False,
                False,
            )
        if not isinstance(query, str):
            return None  # not a text: `operation_of` refuses it
        limit = self.max_document_bytes
        if len(query) > limit or len(query.encode("utf-8", "surrogatepass")) > limit:
            return error_response(ApiError(ErrorCode.DOCUMENT_TOO_LARGE, limit=str(limit)))
        if document_hash(query) != sha:
            return refusal(ErrorCode.PERSISTED_QUERY_HASH_MISMATCH)
        if self.mode == "safelist" and not await self.may_run(await self.lookup(sha), context):
            return refusal(ErrorCode.PERSISTED_QUERY_NOT_ALLOWED)
        # Not asked of the database: `register` takes a hash stored already as it is, and
        # an Apollo client sends the text only after its hash alone was not found.
        fresh = (
            self.mode == "auto"
            and context.api_key is not None
            and sha not in self.table
            and self.kept.get(sha) is None
        )
        return Asked(
            sha, {"query": query, "variables": variables, "operationName": name}, True, fresh
        )

    @staticmethod
    async def may_run(known: Known | None, context: RequestContext) -> bool:
        """Safelist mode: a listed document (or the REST table's) runs; any other only for a
        key with `service.admin`."""
        return (known is not None and known.listed) or await PersistedQueries.admin(context)

    @staticmethod
    async def admin(context: RequestContext) -> bool:
        """A key with `service.admin` (looked up already: `GraphQLView.refusal`)."""
        return context.api_key is not None and ADMIN in (await context.caller()).permissions

    async def lookup(self, sha: str) -> Known | None:
        """The document under `sha`: the REST table's, this process's kept copy while it
        is recent, else the store's (moving its `last_used`)."""
        if not sha:
            return None
        known = self.table.get(sha) or self.kept.get(sha)
        if known is not None and time.monotonic() - known.checked < PERSISTED_QUERY_RECHECK_SECONDS:
            return known
        row = await find(self.store, sha)
        if row is None:
            self.kept.pop(sha)
            return None
        known = Known(row["document"], bool(row.get("safelisted")), time.monotonic())
        self.kept.put(sha, known, stored_bytes(known.text) + ENTRY_BYTES)
        return known

    async def operation(
        self,
        asked: Asked,
        request: Request,
        context: RequestContext,
        caches: DocumentCaches,
        keep: bool,
    ) -> Operation | Response:
        """The request's operation, as `schema.execution.running.request.operation_of` reads one:
        through the cached parse of the text (a known hash skips parsing and validation).
        A text that came with the request and is not plainly one operation the method
        allows is refused as `operation_of` refuses it (ApiError, ParseFailed); for a hash
        alone, the answer strawberry gave."""
        params = asked.params
        name = params["operationName"]
        if asked.sent_text:
            sent = await parsed(caches, params["query"])
            chosen = chosen_operation(sent, name, request.method)
            return await prepared(sent, chosen, params, context, keep)
        try:
            document = await caches.document(params["query"])
        except ApiError:
            raise  # too large: nothing is parsed
        except GraphQLError as error:
            return error_response(invalid({"query": [error.message]}))
        definition = get_operation_ast(document, name)
        if definition is None and name is None and several_operations(document):
            return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields={NAME: [UNNAMED]}))
        if definition is None or (
            request.method == "GET" and definition.operation is OperationType.MUTATION
        ):
            if definition is not None:
                return error_response(ApiError(ErrorCode.METHOD_NOT_ALLOWED))  # a mutation
            problem = f"Unknown operation named '{name}'."
            return json_response(
                {"data": None, "errors": [invalid({"query": [problem]}).formatted]}
            )
        return await prepared(document, definition, params, context, keep)

    async def ran(self, asked: Asked) -> None:
        """After the operation ran (not refused): store a document a keyed client sent in
        auto mode. A store full of documents it may not evict keeps it out; the next hash
        alone then answers not found again."""
        if not asked.register:
            return
        text = asked.params["query"]
        try:
            stored = await register(self.store, asked.sha, text, self.bounds)
        except PyMongoError as error:  # the answer stands; the next request tries again
            log.warning("persisted query %s not stored: %s", asked.sha, error)
            return
        if stored:
            self.kept.put(
                asked.sha, Known(text, False, time.monotonic()), stored_bytes(text) + ENTRY_BYTES
            )
        else:
            log.info(
                "persisted query %s not stored: the store is full of safelisted documents",
                asked.sha,
            )

    @staticmethod
    def answer(
        asked: Asked, request: Request, content: bytes, clean: bool, headers: dict[str, str]
    ) -> Response:
        """A GET's answer without errors carries its ETag (304 on `If-None-Match`); any
        other answer is the plain JSON; both with `headers` (the answer's language)."""
        if request.method == "GET" and clean:
            return conditional(content, request, headers)
        return Response(content, media_type="application/json", headers=headers)
