"""The yardstick of `versus_minimal`, `read_cache` and `live_changes`: a minimal Starlette +
PyMongo async + orjson server.

It does, for the measured routes, the work floorgate cannot avoid and nothing more,
so that the ratio between the two is floorgate's own overhead:

- the API key as floorgate checks it (`resolvers/auth/keys.py`): header `API-Key`, else query
  `api-key`; its SHA-256 looked up by `hash` in `api_keys`, compared again in constant
  time, a disabled key refused; each answer (known or unknown) kept 5 s, like `KeyCache`;
- `GET /v1/units`: floorgate's query (`resolvers/paging.py`: scope filter, sort by `_id`,
  skip, limit N + 1, the `_id_` hint when unfiltered) and the same body byte for byte
  (the fragment's members in its order, `_id` named `id`, the paging object with
  absolute URLs as `rest/v1/paging_urls.py` writes them);
- `GET /v1/assets/{asset}`: the asset scope, then `find_one` by `_id`, the same body;
- `GET /v1/units/attribute-groups/{group}/units/changes` (`live_changes`): the key, the
  `unit-attributes-resource` flag, the read permission and the group's `find_one`, then
  Server-Sent Events from one change stream on the events log per process, fanned out to
  a bounded queue per subscriber (the group, the key's assets and `?asset=` filtered),
  `retry:` first, a heartbeat comment every 15 s, the events as floorgate writes them.
  No resume (`Last-Event-ID`: a fresh subscription reads nothing from the log, in
  floorgate neither but for one query) and no per-key cap on open streams;
- `GET /v1/search?q=&asset=&page=&per-page=` (`search`): the key, the `search` flag, the
  asset scope, then one `find` on `locations`: every word of `q` the beginning of a word
  of the name (a case-insensitive `$regex` per word, no typos, no accents folded, no
  index), sorted by name, skip, limit N + 1; each location as floorgate's item (a unit's
  by its `svc:id` tag), the paging object as E6's.

No GraphQL, rate limit, request id, security headers, time budget or input checks
beyond what the query needs. Served by uvicorn with its defaults (one worker; uvloop and
httptools when installed), with the TLS certificate it is given, logging as uvicorn does.

    python tests/benchmarks/harness/minimal_server.py --mongodb-uri URI --database NAME \
        --port PORT --cert CERT --key KEY --public-url https://localhost:PORT

It imports nothing from floorgate: it is started as a file, as a separate program.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import hmac
import re
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import orjson
import uvicorn
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

KEY_SECONDS = 5.0  # floorgate's KeyCache ttl
MAX_PER_PAGE = 10_000
UNIT_FIELDS = ("asset_id", "floor_id", "name", "created_at", "updated_at")
ASSET_FIELDS = (  # floorgate's AssetFields (rest/v1/documents.py), in its order
    "market",
    "name",
    "display_name",
    "address_line1",
    "address_line2",
    "address_city",
    "address_state",
    "address_postal_code",
    "address_country",
    "latitude",
    "longitude",
    "tags",
    "created_at",
    "updated_at",
)
EVENT_FIELDS = ("group_id", "attribute_id", "asset_id", "unit_id", "at")
ATTRIBUTES_FLAG = "unit-attributes-resource"
ATTRIBUTES_READ = "service.unit-attributes.read"
SEARCH_FLAG = "search"
SEARCH_PER_PAGE, SEARCH_MAX_PER_PAGE = 10, 50  # floorgate's default and limit
SEARCH_FIELDS = {"name": 1, "unit_map_id": 1, "floors": 1, "tags": 1, "asset_id": 1}
CATEGORY_KEYS = ("imdf:category", "svc:category", "amenity", "shop", "leisure")
MAX_QUEUED = 1_000  # floorgate's: a subscriber further behind is cut off
HEARTBEAT_SECONDS = 15.0


class Subscriber:
    """One event stream's queue; None in it ends the stream (it fell behind)."""

    def __init__(self, group_id: str, asset_id: str | None, assets: list[str] | None) -> None:
        self.group_id = group_id
        self.asset_id = asset_id
        self.assets = None if assets is None else frozenset(assets)
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(MAX_QUEUED + 1)
        self.cut = False

    def offer(self, event: dict[str, Any]) -> None:
        if self.cut:
            return
        asset = event["asset_id"]
        if event["group_id"] != self.group_id or (self.asset_id or asset) != asset:
            return
        if self.assets is not None and asset not in self.assets:
            return
        if self.queue.qsize() >= MAX_QUEUED:
            self.cut = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(event)


class Hub:
    """One change stream on the events log (inserts), started by the first subscriber."""

    def __init__(self) -> None:
        self.subscribers: set[Subscriber] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, subscriber: Subscriber, db: AsyncDatabase) -> None:
        self.subscribers.add(subscriber)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.watch(db))

    async def watch(self, db: AsyncDatabase) -> None:
        inserts = [{"$match": {"operationType": "insert"}}]
        async with await db["attribute_events"].watch(inserts) as stream:
            async for change in stream:
                event = change["fullDocument"]
                for subscriber in list(self.subscribers):
                    subscriber.offer(event)


class Server:
    """The process's database handle, key cache and public URL."""

    def __init__(self, uri: str, database: str, public_url: str) -> None:
        self.uri = uri
        self.database = database
        self.public_url = public_url.rstrip("/")
        self.client: AsyncMongoClient | None = None
        self.db: AsyncDatabase | None = None
        self.keys: dict[str, tuple[float, dict[str, Any] | None]] = {}
        self.hub = Hub()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """The client is made inside the server's event loop; `tz_aware` as floorgate's."""
        self.client = AsyncMongoClient(self.uri, tz_aware=True)
        self.db = self.client[self.database]
        try:
            yield
        finally:
            await self.client.close()

    async def key(self, request: Request) -> dict[str, Any] | Response:
        """The enabled key document of the request, or the 401/403 answer."""
        secret = request.headers.get("api-key", "").strip()
        if not secret:
            secret = request.query_params.get("api-key", "").strip()
        if not secret:
            return error(401, "No API key found in request")
        key_hash = hashlib.sha256(secret.encode("utf-8")).hexdigest()
        now = time.monotonic()
        cached = self.keys.get(key_hash)
        if cached is not None and cached[0] >= now:
            document = cached[1]
        else:
            assert self.db is not None
            document = await self.db["api_keys"].find_one({"hash": key_hash})
            if document is not None and (
                not hmac.compare_digest(document["hash"], key_hash) or document.get("disabled")
            ):
                document = None
            self.keys[key_hash] = (now + KEY_SECONDS, document)
        if document is None:
            return error(403, "Invalid authentication credentials")
        return document

    async def list_units(self, request: Request) -> Response:
        """E6: one page of units in `_id` order."""
        key = await self.key(request)
        if isinstance(key, Response):
            return key
        try:
            page = int(request.query_params.get("page", "1"))
            per_page = int(request.query_params.get("per-page", "100"))
        except ValueError:
            return error(422, "Resource validation failed")
        if page < 1 or per_page < 1:
            return error(422, "Resource validation failed")
        per_page = min(per_page, MAX_PER_PAGE)
        assets = key.get("assets")
        query = {} if assets is None else {"asset_id": {"$in": sorted(assets)}}
        assert self.db is not None
        cursor = (
            self.db["units"]
            .find(query)
            .sort([("_id", 1)])
            .skip((page - 1) * per_page)
            .limit(per_page + 1)
        )
        if not query:
            cursor = cursor.hint("_id_")
        documents = await cursor.to_list()
        data = [
            {"id": document["_id"], **{name: document.get(name) for name in UNIT_FIELDS}}
            for document in documents[:per_page]
        ]
        raw_path = request.scope["raw_path"].decode("latin-1")
        query_items = request.query_params.multi_items()
        next_page = page + 1 if len(documents) > per_page else None
        prev_page = page - 1 if page > 1 else None
        paging = {
            "per_page": per_page,
            "current_page": page,
            "prev_url": self.page_url(raw_path, query_items, prev_page, per_page),
            "next_url": self.page_url(raw_path, query_items, next_page, per_page),
        }
        return json({"paging": paging, "data": data})

    def page_url(
        self, raw_path: str, query: list[tuple[str, str]], page: int | None, per_page: int
    ) -> str | None:
        """The request's query without the key, with `page` and `per-page` set."""
        if page is None:
            return None
        kept = [(k, v) for k, v in query if k not in ("api-key", "page", "per-page")]
        kept += [("page", str(page)), ("per-page", str(per_page))]
        return f"{self.public_url}{raw_path}?{urlencode(kept)}"

    async def get_asset(self, request: Request) -> Response:
        """E2: one asset, 404 outside the key's scope."""
        key = await self.key(request)
        if isinstance(key, Response):
            return key
        asset_id = request.path_params["asset"]
        assets = key.get("assets")
        if assets is not None and asset_id not in assets:
            return error(404, "Not found")
        assert self.db is not None
        document = await self.db["assets"].find_one({"_id": asset_id})
        if document is None:
            return error(404, "Not found")
        return json({"id": document["_id"], **{name: document.get(name) for name in ASSET_FIELDS}})

    async def search(self, request: Request) -> Response:
        """Places whose name has a word beginning with each word of `q`, by name."""
        key = await self.key(request)
        if isinstance(key, Response):
            return key
        if SEARCH_FLAG not in flags_of(request):
            return error(404, "Not found")
        q = request.query_params.get("q", "")
        terms = re.findall(r"\w+", q)
        try:
            page = int(request.query_params.get("page", "1"))
            per_page = int(request.query_params.get("per-page", str(SEARCH_PER_PAGE)))
        except ValueError:
            return error(422, "Resource validation failed")
        if not terms or len(q) > 100 or page < 1 or per_page < 1:
            return error(422, "Resource validation failed")
        per_page = min(per_page, SEARCH_MAX_PER_PAGE)
        query: dict[str, Any] = {
            "$and": [
                {"name": {"$regex": f"\\b{re.escape(term)}", "$options": "i"}} for term in terms
            ]
        }
        asset = request.query_params.get("asset")
        assets = key.get("assets")
        if asset is not None:
            if assets is not None and asset not in assets:
                return json({"paging": self.paging(request, page, per_page, False), "data": []})
            query["asset_id"] = asset
        elif assets is not None:
            query["asset_id"] = {"$in": sorted(assets)}
        assert self.db is not None
        cursor = (
            self.db["locations"]
            .find(query, SEARCH_FIELDS)
            .sort([("name", 1), ("_id", 1)])
            .skip((page - 1) * per_page)
            .limit(per_page + 1)
        )
        documents = await cursor.to_list()
        data = [search_item(document) for document in documents[:per_page]]
        paging = self.paging(request, page, per_page, len(documents) > per_page)
        return json({"paging": paging, "data": data})

    def paging(self, request: Request, page: int, per_page: int, more: bool) -> dict[str, Any]:
        raw_path = request.scope["raw_path"].decode("latin-1")
        query_items = request.query_params.multi_items()
        return {
            "per_page": per_page,
            "current_page": page,
            "prev_url": self.page_url(
                raw_path, query_items, page - 1 if page > 1 else None, per_page
            ),
            "next_url": self.page_url(raw_path, query_items, page + 1 if more else None, per_page),
        }

    async def changes(self, request: Request) -> Response:
        """Live changes of a group's assignments as Server-Sent Events."""
        key = await self.key(request)
        if isinstance(key, Response):
            return key
        if ATTRIBUTES_FLAG not in flags_of(request):
            return error(404, "Not found")
        if ATTRIBUTES_READ not in key.get("permissions", []):
            return error(403, "Forbidden")
        group_id = request.path_params["group"]
        assert self.db is not None
        if await self.db["attribute_groups"].find_one({"_id": group_id}) is None:
            return error(404, "Not found")
        subscriber = Subscriber(group_id, request.query_params.get("asset"), key.get("assets"))
        self.hub.add(subscriber, self.db)
        return StreamingResponse(
            self.events(subscriber),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store"},
        )

    async def events(self, subscriber: Subscriber) -> AsyncIterator[bytes]:
        try:
            yield b"retry: 2000\n\n"
            while True:
                try:
                    event = await asyncio.wait_for(subscriber.queue.get(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    yield b": heartbeat\n\n"
                    continue
                if event is None:
                    return
                yield (
                    f"id: {event['_id']}\nevent: {event['change']}\ndata: ".encode()
                    + orjson.dumps({name: event[name] for name in EVENT_FIELDS})
                    + b"\n\n"
                )
        finally:
            self.hub.subscribers.discard(subscriber)


def flags_of(request: Request) -> set[str]:
    return {
        flag.strip()
        for line in request.headers.getlist("experimental-flags")
        for flag in line.split(",")
    }


def search_item(location: dict[str, Any]) -> dict[str, Any]:
    """A location as floorgate's search item: the unit it stands for, if any."""
    tags = {tag.get("key"): tag.get("value") for tag in location.get("tags") or ()}
    unit = tags.get("svc:id")
    floors = location.get("floors") or [{}]
    return {
        "kind": "unit" if unit else "location",
        "id": unit or location["_id"],
        "name": location.get("name"),
        "asset_id": location.get("asset_id"),
        "floor_id": floors[0].get("id"),
        "map_id": location.get("unit_map_id"),
        "location_id": location["_id"],
        "category": next((tags[k] for k in CATEGORY_KEYS if tags.get(k)), None),
        "score": 1.0,
        "matched": "name",
        "distance": None,
        "time": None,
    }


def json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status, media_type="application/json")


def error(status: int, message: str) -> Response:
    return json({"message": message}, status)


def create_app(uri: str, database: str, public_url: str) -> Starlette:
    server = Server(uri, database, public_url)
    routes = [
        Route("/v1/units", server.list_units, methods=["GET"]),
        Route("/v1/assets/{asset}", server.get_asset, methods=["GET"]),
        Route("/v1/search", server.search, methods=["GET"]),
        Route("/v1/units/attribute-groups/{group}/units/changes", server.changes, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=server.lifespan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mongodb-uri", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--public-url", required=True)
    args = parser.parse_args()
    app = create_app(args.mongodb_uri, args.database, args.public_url)
    uvicorn.run(app, host=args.host, port=args.port, ssl_certfile=args.cert, ssl_keyfile=args.key)


if __name__ == "__main__":
    main()
