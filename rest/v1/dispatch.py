"""The REST face: match a route, turn the request into the variables of its operation,
hand that to the runner (`schema.execution.running.runner`: access, cache, price, charge,
execute on the route's plan or its GraphQL document, settle, keep), and turn the answer
into the REST response."""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Callable
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode, FieldErrors, OperationFailed
from resolvers.language import Language, language_etag
from resolvers.limits import INT32_MAX
from rest.credentials import query_flags, repeated_key, request_context
from rest.etags import REVALIDATE, body_etag, etag_matches, tile_caching
from rest.language import LANG, echoed_query, language_headers, request_language
from rest.ops.metrics import ROUTE
from rest.responses import error_of, error_response, json_bytes
from rest.v1.documents import OMITTED_WHEN_NULL, without_nulls
from rest.v1.paging_urls import with_urls
from rest.v1.router import Match, Router
from rest.v1.routes import ROUTES
from rest.v1.routes.rows import TILE_TYPE, RestRoute, Shape
from schema.execution.running.route import RouteOperation
from schema.execution.running.runner import Encoded, OperationCall, OperationRunner, Ran
from schema.lazy import LazySchema
from storage.cache.read_cache import kept_key, variables_digest

if TYPE_CHECKING:
    from rest.v1.graphql_routes import GraphQLRoutes
    from schema.execution.running.route_documents import RouteDocuments

ACCESS_CODES = frozenset(
    {
        ErrorCode.UNAUTHENTICATED,
        ErrorCode.INVALID_KEY,
        ErrorCode.FLAG_REQUIRED,
        ErrorCode.FORBIDDEN,
        ErrorCode.RATE_LIMITED,
        ErrorCode.SERVICE_UNAVAILABLE,
    }
)
INTEGER = re.compile(r"^[+-]?[0-9]+$")  # ASCII digits only: a fullwidth one is not 1
INT32_DIGITS = len(str(INT32_MAX))
# Routes are prepared after start while no REST request runs (`RestApi.prepare_all`).
PREPARE_AFTER_SECONDS = 1.0
IDLE_POLL_SECONDS = 0.05


class RestApi:
    """Serves every route of the table through the runner: a planned route
    (`schema.execution.running.planned`) on its plan, every other through the GraphQL
    schema, built when first needed (`schema.lazy`)."""

    def __init__(self, services: Services, schemas: LazySchema) -> None:
        self.services = services
        self.schemas = schemas
        self.router = Router(ROUTES)
        self.running = 0  # REST requests under way: routes are prepared while it is 0
        self._graphql: GraphQLRoutes | None = None

    @cached_property
    def runner(self) -> OperationRunner:
        return OperationRunner(self.services.store.cache)

    async def graphql(self) -> GraphQLRoutes:
        """The routes over the schema, once it is built (imports GraphQL on first use)."""
        if self._graphql is None:
            schema = await self.schemas.get()
            from rest.v1.graphql_routes import GraphQLRoutes

            if self._graphql is None:
                self._graphql = GraphQLRoutes(schema._schema, self.schemas.settings)
        return self._graphql

    async def prepare_all(
        self, after: float = PREPARE_AFTER_SECONDS, then: Callable[[], None] | None = None
    ) -> None:
        """The schema built (then `then()`) and every route prepared after start, in idle
        moments: `after` seconds, then one route at a time while no REST request runs.
        Preparing all takes about 110 ms of CPU (up to 10 ms a route); begun at once, it
        ran between the first request's steps and that answer came 45 ms later. A route
        asked for first is prepared then (`run`); a planned route's plan on its first
        request."""
        await asyncio.sleep(after)
        graphql = await self.graphql()
        if then is not None:
            then()
        for route in ROUTES:
            while self.running:
                await asyncio.sleep(IDLE_POLL_SECONDS)
            graphql.prepare(route)
            await asyncio.sleep(0)

    async def handle(self, request: Request) -> Response:
        raw_path = (request.scope.get("raw_path") or request.url.path.encode()).decode("latin-1")
        head = request.method == "HEAD"
        try:
            match, allowed = self.router.match(raw_path, request.method)
        except UnicodeDecodeError:
            return error_response(
                ApiError(ErrorCode.BAD_USER_INPUT, fields={"path": ["is not valid UTF-8"]})
            )
        if match is None:
            if allowed:
                return error_of(
                    ErrorCode.METHOD_NOT_ALLOWED, headers={"Allow": ", ".join(sorted(allowed))}
                )
            return error_of(ErrorCode.NOT_FOUND)
        request.scope["state"][ROUTE] = match.route.operation_id  # for /metrics
        self.running += 1
        try:
            response = await self.run(request, match, raw_path)
        finally:
            self.running -= 1
        return without_body(response) if head else response

    async def run(self, request: Request, match: Match, raw_path: str) -> Response:
        route = match.route
        context = request_context(request, self.services)
        if route.shape is Shape.EVENTS and not context.flags:
            context.flags = query_flags(request)
        repeated = repeated_key(request)
        if repeated is not None:
            return error_response(repeated)
        operation = RouteOperation(route, self.documents, context)
        # Access first, before the body is read or anything is validated: a caller who
        # may not call the route learns nothing else and costs nothing more.
        try:
            await self.runner.admit(context, (await operation.requirement(),))
        except ApiError as access_error:
            return error_response(access_error)
        variables, problems = variables_of(route, match.path_values, request)
        try:  # the language to answer in: `lang=`, else Accept-Language (issue 51)
            context.language = request_language(
                request, self.services.settings.default_language, problems
            )
        except ApiError as too_long:
            return error_response(too_long)
        if any(param.required and param.variable not in variables for param in route.params):
            # a required query parameter is missing (`q`): nothing can run
            return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
        if route.shape is Shape.EVENTS:
            graphql = await self.graphql()
            if problems:
                return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
            try:
                return await graphql.event_stream(route, context, variables, request)
            except OperationFailed as failed:
                return self.refusal(route, failed.error)
        if route.body is not None:
            graphql = await self.graphql()
            try:
                variables.update(await graphql.body_variables(route, request))
            except ApiError as body_error:
                return error_response(body_error)
        # One rate-limit unit per COST_PER_RATE_UNIT of cost, like GraphQL: a route at its
        # default page is one unit, per-page=10000 a few more, charged before it runs;
        # what a shorter page did not cost is given back after. Input with problems is
        # run for its other problems, not charged.
        operation.variables = variables
        call = OperationCall(
            context,
            operation,
            partial(self.encode, route, request, raw_path, context.language),
            await self.answer_key(route, context, raw_path, request, problems, variables),
            charged=not problems,
        )
        try:
            ran = await self.runner.run(call)
        except ApiError as refusal:
            return error_response(refusal)
        except OperationFailed as failed:
            return await self.failure(route, failed, problems, variables)
        if problems:
            return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
        return self.respond(route, ran, request, language_headers(context.language))

    async def documents(self) -> RouteDocuments:
        """The routes' documents over the schema (built on first need)."""
        return (await self.graphql()).documents

    async def failure(
        self,
        route: RestRoute,
        failed: OperationFailed,
        problems: FieldErrors,
        variables: dict[str, Any],
    ) -> Response:
        """The answer of a failed operation, with the input's own problems."""
        if failed.nothing_ran and route.body is not None:
            # Nothing ran: the body did not coerce to its GraphQL type (named here, in
            # REST words), or a check before execution refused.
            body_fields = (await self.graphql()).body_problems(route, variables)
            if body_fields:
                return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=body_fields))
        if problems:
            # Query syntax is input: it fails only after access (key, flag, permission)
            # passed, together with every other problem of the input.
            if failed.error.code in ACCESS_CODES:
                return error_response(failed.error)
            for name, messages in self.rest_fields(route, failed.error).items():
                problems.fields.setdefault(name, []).extend(messages)
            return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
        return self.refusal(route, failed.error)

    async def answer_key(
        self,
        route: RestRoute,
        context: RequestContext,
        raw_path: str,
        request: Request,
        problems: FieldErrors,
        variables: dict[str, Any],
    ) -> bytes | None:
        """A digest of what an answer depends on besides the data it reads: the route,
        path and query (paging URLs repeat them), a JSON body's variables, the caller's
        permissions and assets, the flags. None where answers are not kept: the route
        keeps none, bad input, the cache not serving, or a query parameter the route does
        not read (its answer only echoes it in paging URLs; kept, junk parameters would
        fill the cache with copies of one answer)."""
        if not route.keeps_answers or problems or not self.services.store.cache.live:
            return None
        if any(name not in route.reads and name != LANG for name in request.query_params):
            return None
        body = b"" if route.body is None else variables_digest(b"", variables)
        if body is None:  # nested past what orjson writes: runs, is not kept
            return None
        caller = await context.caller()
        # decoded, as the route and its paging links read it; `lang=` as the language
        # chosen: 2,000 spellings of German kept one answer each (issue 63)
        query = echoed_query(request.query_params.multi_items(), context.language)
        return kept_key(
            "answer",
            route.operation_id,
            raw_path,
            query,
            body,
            caller.permissions,
            caller.assets,
            context.flags,
            None if context.language is None else context.language.key,
        )

    def encode(
        self,
        route: RestRoute,
        request: Request,
        raw_path: str,
        language: Language | None,
        body: Any,
    ) -> Encoded:
        """A successful operation's answer in the route's shape, with a GET's tag (one per
        language: the same data told in two languages is two answers)."""
        if route.shape is Shape.NO_CONTENT:
            return Encoded(b"", keep=False)
        if route.fragment in OMITTED_WHEN_NULL:
            without_nulls(route.fragment, body["data"] if route.shape is Shape.PAGED else [body])
        if route.shape is Shape.PAGED:
            public = self.services.settings.public_url
            query = echoed_query(request.query_params.multi_items(), language)
            body = with_urls(body, public, raw_path, query)
        elif route.shape is Shape.DATA:
            body = {"data": body}
        if route.shape is Shape.TILE:  # the bytes themselves, tagged by data version
            # the same in every language: its features carry their default names
            return Encoded(base64.b64decode(body["data"]), body["etag"])
        if route.shape is Shape.VERSIONED:  # E17 keeps its own tag (also in GraphQL)
            return Encoded(json_bytes({"data": body["data"]}), body["etag"])  # per language
        content = json_bytes(body)
        # A POST's answer is not revalidated: no tag.
        if route.method != "GET":
            return Encoded(content)
        return Encoded(content, language_etag(body_etag(content), language))

    @staticmethod
    def respond(
        route: RestRoute, ran: Ran[Any], request: Request, headers: dict[str, str]
    ) -> Response:
        """The REST response of a successful operation (run, or kept), with `headers` (its
        language's)."""
        if route.shape is Shape.NO_CONTENT:
            return Response(status_code=204, headers=headers)
        if route.method != "GET":
            return Response(ran.content, media_type=route.media_type, headers=headers)
        if route.shape is Shape.TILE:  # no language (above): no Content-Language, no Vary
            return conditional(ran.content, ran.tag, TILE_TYPE, request, tile_caching(request))
        return conditional(ran.content, ran.tag, route.media_type, request, headers=headers)

    def refusal(self, route: RestRoute, error: ApiError) -> Response:
        """The REST answer of an operation that failed: its first error, in our format,
        `fields` named as the route names its inputs."""
        if error.fields:
            error = ApiError(ErrorCode.BAD_USER_INPUT, fields=self.rest_fields(route, error))
        return error_response(error)

    @staticmethod
    def rest_fields(route: RestRoute, error: ApiError) -> dict[str, list[str]]:
        """`fields` of a GraphQL error, keyed by the route's REST parameter names."""
        return {route.param_name(name): messages for name, messages in (error.fields or {}).items()}


def variables_of(
    route: RestRoute, path_values: dict[str, str], request: Request
) -> tuple[dict[str, Any], FieldErrors]:
    """GraphQL variables from path and query; integers must be whole int32 numbers."""
    variables: dict[str, Any] = {}
    problems = FieldErrors()
    for param in route.params:
        if param.location == "path":
            given = [path_values[param.name]]
        else:
            given = [v for name in param.spellings for v in request.query_params.getlist(name)]
        if not given:
            if param.required:
                problems.add(param.name, "is required")
            continue
        if len(given) > 1:
            problems.add(param.name, "must be given once")
            continue
        raw = given[0]
        if not param.is_int:
            variables[param.variable] = raw
            continue
        number = int32_of(raw)
        if isinstance(number, str):
            problems.add(param.name, number)
        else:
            variables[param.variable] = number
    return variables, problems


def int32_of(raw: str) -> int | str:
    """The whole number in `raw` (ASCII digits, any length, leading zeros allowed), or
    what is wrong with it. Long digit strings are measured, never converted: Python
    refuses to convert more than 4,300 digits."""
    text = raw.strip()
    if not INTEGER.match(text):
        return "must be an integer"
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > INT32_DIGITS or int(digits) > INT32_MAX:
        return f"must be at most {INT32_MAX}"
    return -int(digits) if text[0] == "-" else int(digits)


def conditional(
    content: bytes,
    etag: str,
    media_type: str,
    request: Request,
    caching: str = REVALIDATE,
    headers: dict[str, str] | None = None,
) -> Response:
    """A GET's 200 with its tag, or 304 when `If-None-Match` names it. Only a success
    gets here, so an error is never turned into a 304 and never carries a tag."""
    headers = {**(headers or {}), "ETag": f'"{etag}"', "Cache-Control": caching}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(content, headers=headers, media_type=media_type)


def without_body(response: Response) -> Response:
    """HEAD: the GET's status and headers (Content-Length included), no body (RFC 9110 9.3.2)."""
    head = Response(status_code=response.status_code)
    head.raw_headers = list(response.raw_headers)
    return head
