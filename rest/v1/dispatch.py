"""The REST face: match a route, turn the request into GraphQL variables, run the
persisted document in-process, and turn the result into the REST response."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from resolvers.auth.access import authorize
from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode, FieldErrors, OperationFailed, classify_raised
from resolvers.limits import INT32_MAX, MAX_PER_PAGE, PER_PAGE
from rest.credentials import query_flags, repeated_key, request_context
from rest.etags import REVALIDATE, body_etag, etag_matches
from rest.ops.metrics import ROUTE
from rest.responses import error_of, error_response, json_bytes
from rest.v1.documents import OMITTED_WHEN_NULL, without_nulls
from rest.v1.paging_urls import with_urls
from rest.v1.planned.plan import RESULT, PlannedRoute
from rest.v1.planned.routes import PLANS
from rest.v1.route_rows import RestRoute, Shape
from rest.v1.router import Match, Router
from rest.v1.routes import ROUTES
from schema.execution.direct import StepAside, run_direct
from schema.lazy import LazySchema
from storage.cache.read_cache import READS, ReadLog, kept_key, variables_digest

if TYPE_CHECKING:
    from rest.v1.graphql_routes import GraphQLRoutes

log = logging.getLogger("floorgate.rest")
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
MAX_PRICED = 4096  # (route, page size) costs remembered; the rest priced every time
# Routes are prepared after start while no REST request runs (`RestApi.prepare_all`).
PREPARE_AFTER_SECONDS = 1.0
IDLE_POLL_SECONDS = 0.05


class RestApi:
    """Serves every route of the table: a planned route (`rest.v1.planned`) on its plan,
    every other through the GraphQL schema, built when first needed (`schema.lazy`)."""

    def __init__(self, services: Services, schemas: LazySchema) -> None:
        self.services = services
        self.schemas = schemas
        self.router = Router(ROUTES)
        self.running = 0  # REST requests under way: routes are prepared while it is 0
        self.costs: dict[tuple[str, int | None], int] = {}
        self.answer_costs: dict[bytes, int] = {}  # kept answer -> what it cost
        self._graphql: GraphQLRoutes | None = None

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
        plan = PLANS.get(route.operation_id)
        context = request_context(request, self.services)
        if route.shape is Shape.EVENTS and not context.flags:
            context.flags = query_flags(request)
        repeated = repeated_key(request)
        if repeated is not None:
            return error_response(repeated)
        graphql = None if plan is not None else await self.graphql()
        # Access first, before the body is read or anything is validated: a caller who
        # may not call the route learns nothing else and costs nothing more.
        if plan is not None:
            permission, flag = plan.requirement
        else:
            assert graphql is not None
            permission, flag = graphql.requirements[route.operation_id]
        try:
            await authorize(context, permission=permission, flag=flag)
        except ApiError as access_error:
            return error_response(access_error)
        variables, problems = variables_of(route, match.path_values, request)
        if route.shape is Shape.EVENTS:
            assert graphql is not None
            if problems:
                return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
            try:
                return await graphql.event_stream(route, context, variables, request)
            except OperationFailed as failed:
                return self.refusal(route, failed.error)
        if route.body is not None:
            assert graphql is not None
            try:
                variables.update(await graphql.body_variables(route, request))
            except ApiError as body_error:
                return error_response(body_error)
        if not problems:
            # One rate-limit unit per COST_PER_RATE_UNIT of cost, like GraphQL: a route at
            # its default page is one unit, per-page=10000 a few more, charged before it
            # runs; what a shorter page did not cost is given back after (`settle`).
            try:
                await context.charge(await self.cost(route, variables))
            except ApiError as rate_error:
                return error_response(rate_error)
        answer_key = await self.answer_key(route, context, raw_path, request, problems, variables)
        reads = None
        if answer_key is not None:
            kept = self.services.store.cache.answer(answer_key)
            if kept is not None:  # access and rate limit were checked above, as always
                cost = self.answer_costs.get(answer_key)
                if cost is not None:
                    await context.settle(cost)
                if route.method != "GET":
                    return Response(kept[0], media_type=route.media_type)
                return conditional(*kept, route.media_type, request)
            reads = ReadLog(answer_key)
        token = READS.set(reads)
        try:
            result = await self.execute(route, plan, variables, context)
        except OperationFailed as failed:
            return await self.failure(route, failed, problems, variables)
        finally:
            READS.reset(token)
        if problems:
            return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
        cost = await self.answered_cost(route, variables, result)
        if cost is not None:
            await context.settle(cost)
            if answer_key is not None:
                if len(self.answer_costs) >= MAX_PRICED:
                    self.answer_costs.clear()
                self.answer_costs[answer_key] = cost
        return self.respond(route, result, request, raw_path, reads)

    async def execute(
        self,
        route: RestRoute,
        plan: PlannedRoute | None,
        variables: dict[str, Any],
        context: RequestContext,
    ) -> Any:
        """The route's result (`data.result`): on its plan, else (or when the plan steps
        aside) through GraphQL. Raises OperationFailed with the operation's first error."""
        if plan is not None:
            try:
                outcome = await run_direct(plan.direct(), context, variables)
            except StepAside:
                pass  # graphql-core answers it, exactly
            else:
                if not outcome.failures:
                    assert outcome.data is not None
                    return outcome.data[RESULT]
                raised = outcome.failures[0][1]
                error = classify_raised(raised, self.services.settings.retry_after_seconds)
                if error.code is ErrorCode.INTERNAL:
                    log.error("request failed: %s", raised, exc_info=raised)
                raise OperationFailed(error, outcome.data is None)
        graphql = await self.graphql()
        return await graphql.execute(route, variables, context)

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
        if any(name not in route.reads for name in request.query_params):
            return None
        body = b"" if route.body is None else variables_digest(b"", variables)
        if body is None:  # nested past what orjson writes: runs, is not kept
            return None
        caller = await context.caller()
        query = request.scope.get("query_string", b"")
        return kept_key(
            "answer",
            route.operation_id,
            raw_path,
            query,
            body,
            caller.permissions,
            caller.assets,
            context.flags,
        )

    async def cost(self, route: RestRoute, variables: dict[str, Any]) -> int:
        """The operation's cost: a planned route's by its formula; else, without a body it
        depends on the page size alone (no field of a bodiless route has a cost of its own
        that grows with its strings), so it is priced once per route and page size."""
        plan = PLANS.get(route.operation_id)
        if plan is not None:
            return plan.price(variables)
        graphql = await self.graphql()
        if route.body is not None:
            return graphql.cost(route, variables)
        per_page = variables.get(PER_PAGE)
        key = (route.operation_id, None if per_page is None else min(per_page, MAX_PER_PAGE + 1))
        found = self.costs.get(key)
        if found is None:
            found = graphql.cost(route, variables)
            if len(self.costs) < MAX_PRICED:
                self.costs[key] = found
        return found

    async def answered_cost(
        self, route: RestRoute, variables: dict[str, Any], result: Any
    ) -> int | None:
        """What the answer cost when its page came out shorter than the `per-page` it was
        priced at: the cost of a page of the items it holds (at least one). None when it
        cost what was charged. `/v1/maps?per-page=10000` answering 12 maps is one unit,
        not 13."""
        per_page = variables.get(PER_PAGE)
        items = result.get("data") if isinstance(result, dict) else result
        if route.body is not None or per_page is None or not isinstance(items, list):
            return None
        if len(items) >= min(per_page, MAX_PER_PAGE):
            return None
        return await self.cost(route, {**variables, PER_PAGE: max(1, len(items))})

    def respond(
        self,
        route: RestRoute,
        body: Any,
        request: Request,
        raw_path: str,
        reads: ReadLog | None = None,
    ) -> Response:
        """The REST response of a successful operation, in the route's shape; a kept
        answer (`reads` names its key) is kept while the data it read holds."""
        if route.shape is Shape.NO_CONTENT:
            return Response(status_code=204)
        if route.fragment in OMITTED_WHEN_NULL:
            without_nulls(route.fragment, body["data"] if route.shape is Shape.PAGED else [body])
        if route.shape is Shape.PAGED:
            public = self.services.settings.public_url
            body = with_urls(body, public, raw_path, request.query_params.multi_items())
        elif route.shape is Shape.DATA:
            body = {"data": body}
        if route.shape is Shape.VERSIONED:  # E17 keeps its own tag (also in GraphQL)
            content, etag = json_bytes({"data": body["data"]}), body["etag"]
        else:
            content = json_bytes(body)
            if route.method != "GET":  # a POST's answer is not revalidated: no tag
                if reads is not None:
                    self.services.store.cache.keep_answer(reads, content, "")
                return Response(content, media_type=route.media_type)
            etag = body_etag(content)
        if reads is not None:
            self.services.store.cache.keep_answer(reads, content, etag)
        return conditional(content, etag, route.media_type, request)

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
            variables[param.variable] = path_values[param.name]
            continue
        given = [value for name in param.spellings for value in request.query_params.getlist(name)]
        if not given:
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


def conditional(content: bytes, etag: str, media_type: str, request: Request) -> Response:
    """A GET's 200 with its tag, or 304 when `If-None-Match` names it. Only a success
    gets here, so an error is never turned into a 304 and never carries a tag."""
    headers = {"ETag": f'"{etag}"', "Cache-Control": REVALIDATE}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(content, headers=headers, media_type=media_type)


def without_body(response: Response) -> Response:
    """HEAD: the GET's status and headers (Content-Length included), no body (RFC 9110 9.3.2)."""
    head = Response(status_code=response.status_code)
    head.raw_headers = list(response.raw_headers)
    return head
