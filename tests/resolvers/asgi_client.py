"""An in-process client of the app for tests that send thousands of requests: the request
as httpx's ASGITransport hands it to the app (scope, body, `http.disconnect` only once
the answer is complete), without httpx's per-request models, hooks, cookies and
redirects, and without asking for compression (the app answers these tests plainly).
It answers what those tests read: `status_code`, `headers` (lower-case names), `content`,
`text` and `json()`."""

from __future__ import annotations

import asyncio
import json as stdlib_json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlencode

HOST = b"testserver"


@dataclass
class Answer:
    status_code: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""

    @property
    def text(self) -> str:
        return self.content.decode()

    def json(self) -> Any:
        return stdlib_json.loads(self.content)


class AsgiClient:
    """`get`/`post`/`put`/`delete` of `url` (a path, with or without a query), with
    `params`, a `json` body and `headers`, as httpx sends them over https to testserver."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def get(self, url: str, **options: Any) -> Answer:
        return await self.request("GET", url, **options)

    async def post(self, url: str, **options: Any) -> Answer:
        return await self.request("POST", url, **options)

    async def put(self, url: str, **options: Any) -> Answer:
        return await self.request("PUT", url, **options)

    async def delete(self, url: str, **options: Any) -> Answer:
        return await self.request("DELETE", url, **options)

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        path, _, query = url.partition("?")
        if params:
            query = "&".join(part for part in (query, urlencode(params)) if part)
        body = b"" if json is None else stdlib_json.dumps(json).encode()
        raw = [(b"host", HOST), (b"accept", b"*/*")]
        if json is not None:
            raw.append((b"content-type", b"application/json"))
        if json is not None or method in ("POST", "PUT", "PATCH"):
            raw.append((b"content-length", str(len(body)).encode()))
        raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "headers": raw,
            "scheme": "https",
            "path": unquote(path),
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "server": ("testserver", 443),
            "client": ("127.0.0.1", 123),
            "root_path": "",
        }
        answer = Answer()
        chunks: list[bytes] = []
        sent = False
        done = asyncio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await done.wait()
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer.status_code = message["status"]
                answer.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    done.set()

        try:
            await self.app(scope, receive, send)
        finally:
            done.set()
        answer.content = b"".join(chunks)
        return answer
