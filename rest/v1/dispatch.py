"""The REST face: match a route, turn the request into GraphQL variables, run the
persisted document in-process, and turn the result into the REST response."""

from __future__ import annotations

import asyncio
import logging
import re
from inspect import isawaitable
from typing import Any

from graphql import ExecutionResult, GraphQLSchema, execute, validate
from starlette.requests import Request
from starlette.responses import Response

from resolvers.auth.access import authorize
from resolvers.context import RequestContext, Services
from resolvers.errors import ApiError, ErrorCode, FieldErrors, classify
from resolvers.limits import INT32_MAX, MAX_PER_PAGE
from rest.credentials import query_flags, repeated_key, request_context
from rest.etags import REVALIDATE, body_etag, etag_matches
from rest.graphql_http.direct import variables_digest
from rest.ops.metrics import ROUTE
from rest.responses import error_of, error_response, json_bytes
from rest.v1.bodies import read_text_body
from rest.v1.documents import OMITTED_WHEN_NULL, without_nulls
from rest.v1.event_stream import EventTexts, event_stream
from rest.v1.json_body import body_problems, body_variables, read_json_body
from rest.v1.paging_urls import with_urls
from rest.v1.route_rows import RestRoute, Shape
from rest.v1.router import Match, Router
from rest.v1.routes import ROUTES
from schema.execution.direct_plans import execute_directly
from schema.execution.executor import CompiledExecutor
from schema.execution.operation_cost import operation_cost
from schema.execution.operation_limits import PER_PAGE
from schema.execution.plans import precompile
from schema.permissions import Requirement, field_requirement
from storage.cache.read_cache import READS, ReadLog, kept_key

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


def requirement_of(schema: GraphQLSchema, route: RestRoute) -> Requirement:
    """The permission and flag that the route's root field demands, so REST checks
    access before it reads a body or anything else."""
    roots = {
        "query": schema.query_type,
        "mutation": schema.mutation_type,
        "subscription": schema.subscription_type,
    }
    root = roots[route.operation]
    assert root is not None
    return field_requirement(root.fields[route.graphql_field]) or (None, None)


class RestApi:
    """Serves every route of the table through the GraphQL schema."""

    def __init__(self, graphql_schema: GraphQLSchema, services: Services) -> None:
        self.schema = graphql_schema
        self.services = services
        self.router = Router(ROUTES)
        self.requirements = {
            route.operation_id: requirement_of(graphql_schema, route) for route in ROUTES
        }
        self.prepared: set[str] = set()
        self.running = 0  # REST requests under way: routes are prepared while it is 0
        self.costs: dict[tuple[str, int | None], int] = {}
        self.answer_costs: dict[bytes, int] = {}  # kept answer -> what it cost
        self.event_texts = EventTexts()  # each change's event, for every stream

    def prepare(self, route: RestRoute) -> None:
        """Validate the route's document and make its plan, once. Not at import or app
        creation: validating every document takes 100 ms or more of a cold start."""
        if route.operation_id in self.prepared:
            return
        problems = validate(self.schema, route.parsed)
        if problems:
            raise RuntimeError(f"route {route.path}: invalid document: {problems}")
        if route.shape is not Shape.EVENTS and precompile(self.schema, route.parsed) is None:
            log.debug("route %s runs on graphql-core alone", route.operation_id)
        self.prepared.add(route.operation_id)

    async def prepare_all(self, after: float = PREPARE_AFTER_SECONDS) -> None:
        """Every route prepared after start, in idle moments: `after` seconds, then one
        route at a time while no REST request runs. Preparing all takes about 110 ms of
        CPU (up to 10 ms a route); begun at once, it ran between the first request's
        steps and that answer came 45 ms later. A route asked for first is prepared then
        (`run`)."""
        await asyncio.sleep(after)
        for route in ROUTES:
            while self.running:
                await asyncio.sleep(IDLE_POLL_SECONDS)
            self.prepare(route)
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
        # Access first, before the body is read or anything is validated: a caller who
        # may not call the route learns nothing else and costs nothing more.
        permission, flag = self.requirements[route.operation_id]
        try:
            await authorize(context, permission=permission, flag=flag)
        except ApiError as access_error:
            return error_response(access_error)
        variables, problems = variables_of(route, match.path_values, request)
        if route.shape is Shape.EVENTS:
            if problems:
                return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
            self.prepare(route)
            opened = await event_stream(
                self.schema, route, context, variables, request, self.event_texts
            )
            return self.refusal(route, opened) if isinstance(opened, ExecutionResult) else opened
        if route.body is not None:
            try:
                variables.update(body_variables(route.body, await self.read_body(route, request)))
            except ApiError as body_error:
                return error_response(body_error)
        if not problems:
            # One rate-limit unit per COST_PER_RATE_UNIT of cost, like GraphQL: a route at
            # its default page is one unit, per-page=10000 a few more, charged before it
            # runs; what a shorter page did not cost is given back after (`settle`).
            try:
                await context.charge(self.cost(route, variables))
            except ApiError as rate_error:
                return error_response(rate_error)
        self.prepare(route)
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
            outcome = None
            if CompiledExecutor.runs_direct_plans:
                outcome = await execute_directly(
                    self.schema, route.parsed, route.definition, variables, context
                )
            if outcome is None:
                outcome = execute(
                    self.schema,
                    route.parsed,
                    context_value=context,
                    variable_values=variables,
                    executor_class=CompiledExecutor,
                )
            if isawaitable(outcome):  # not when the variables do not coerce
                outcome = await outcome
        finally:
            READS.reset(token)
        assert isinstance(outcome, ExecutionResult)
        if outcome.errors and outcome.data is None:
            # Nothing ran: the body did not coerce to its GraphQL type (named here, in
            # REST words), or a check before execution refused.
            body_fields = self.body_problems(route, variables)
            if body_fields:
                return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=body_fields))
        if problems:
            # Query syntax is input: it fails only after access (key, flag, permission)
            # passed, together with every other problem of the input.
            error = self.classify(outcome) if outcome.errors else None
            if error is not None and error.code in ACCESS_CODES:
                return error_response(error)
            if error is not None:
                for name, messages in self.rest_fields(route, error).items():
                    problems.fields.setdefault(name, []).extend(messages)
            return error_response(ApiError(ErrorCode.BAD_USER_INPUT, fields=problems.fields))
        if outcome.errors:
            return self.refusal(route, outcome)
        result = (outcome.data or {})["result"]
        cost = self.answered_cost(route, variables, result)
        if cost is not None:
            await context.settle(cost)
            if answer_key is not None:
                if len(self.answer_costs) >= MAX_PRICED:
                    self.answer_costs.clear()
                self.answer_costs[answer_key] = cost
        return self.respond(route, result, request, raw_path, reads)

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

    def cost(self, route: RestRoute, variables: dict[str, Any]) -> int:
        """The operation's cost. Without a body it depends on the page size alone (no
        field of a bodiless route has a cost of its own that grows with its strings),
        so it is priced once per route and page size."""
        if route.body is not None:
            return operation_cost(self.schema, route.parsed, variables)
        per_page = variables.get(PER_PAGE)
        key = (route.operation_id, None if per_page is None else min(per_page, MAX_PER_PAGE + 1))
        found = self.costs.get(key)
        if found is None:
            found = operation_cost(self.schema, route.parsed, variables)
            if len(self.costs) < MAX_PRICED:
                self.costs[key] = found
        return found

    def answered_cost(self, route: RestRoute, variables: dict[str, Any], result: Any) -> int | None:
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
        return self.cost(route, {**variables, PER_PAGE: max(1, len(items))})

    async def read_body(self, route: RestRoute, request: Request) -> Any:
        """The body as the value of its GraphQL variable, or the ApiError it deserves."""
        body = route.body
        assert body is not None
        settings = self.services.settings
        if not body.json:
            return await read_text_body(body, request, settings)
        return await read_json_body(body, request, settings)

    def body_problems(self, route: RestRoute, variables: dict[str, Any]) -> dict[str, list[str]]:
        """Every way a JSON body does not fit its GraphQL input type, keyed by its REST
        place. Asked only when an execution failed before anything ran: a body that fits
        is coerced once, by the execution (for E18's 50 waypoints that halves the input
        work), and one that does not is refused before any resolver runs all the same."""
        body = route.body
        if body is None or not body.json:
            return {}
        return body_problems(self.schema, body, variables)

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

    def refusal(self, route: RestRoute, outcome: ExecutionResult) -> Response:
        """The REST answer of an operation that failed: its first error, in our format,
        `fields` named as the route names its inputs."""
        error = self.classify(outcome)
        if error.fields:
            error = ApiError(ErrorCode.BAD_USER_INPUT, fields=self.rest_fields(route, error))
        return error_response(error)

    def classify(self, outcome: ExecutionResult) -> ApiError:
        assert outcome.errors
        error = classify(outcome.errors[0], self.services.settings.retry_after_seconds)
        if error.code is ErrorCode.INTERNAL:
            log.error(
                "request failed: %s", outcome.errors[0], exc_info=outcome.errors[0].original_error
            )
        return error

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
