"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe).

A pipe needs no websocket client (stdlib only) and, unlike `--dump-dom`, lets a test wait
for the page to render and see what the page itself requested, logged and threw. (A net
log would also list the browser's own calls to Google, which are not the page's doing.)
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
MISSING = (
    "chromium not installed: run `make test` (installs Debian's chromium) "
    "or apt-get install chromium"
)

# Chromium wants the pipe on its fds 3 (commands in) and 4 (messages out); subprocess
# cannot renumber fds, so a tiny Python step does it before exec'ing the browser.
_ON_FDS_3_AND_4 = (
    "import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); "
    "os.dup2(r, 3); os.dup2(w, 4); os.close(r); os.close(w); os.execv(sys.argv[3], sys.argv[3:])"
)


def spki_pin(cert_pem: Path) -> str:
    """base64 SHA-256 of the leaf's public key, for --ignore-certificate-errors-spki-list:
    trust exactly this test certificate rather than ignore certificate errors wholesale."""
    leaf = x509.load_pem_x509_certificates(cert_pem.read_bytes())[0]
    spki = leaf.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def _high_fd(fd: int) -> int:
    """A copy of `fd` numbered 5 or more, so renumbering to 3 and 4 cannot clobber it."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 5)
    os.close(fd)
    return copy


class Chromium:
    """One headless browser; `call` sends a command, events pile up in `events`."""

    def __init__(self, profile: Path, extra_flags: list[str], deadline: float) -> None:
        self.deadline = deadline  # time.monotonic() after which every wait fails
        commands_r, commands_w = (_high_fd(fd) for fd in os.pipe())
        messages_r, messages_w = (_high_fd(fd) for fd in os.pipe())
        argv = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--remote-debugging-pipe",
            *extra_flags,
            "about:blank",
        ]
        self.log = profile.with_name(profile.name + ".log")  # the browser's own chatter
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _ON_FDS_3_AND_4, str(commands_r), str(messages_w), *argv],
                pass_fds=(commands_r, messages_w),
                start_new_session=True,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        os.close(commands_r)
        os.close(messages_w)
        self._writer, self._reader = commands_w, messages_r
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._writer, data) :]
        while True:
            reply = self._read(self.deadline)
            if reply is None:
                raise TimeoutError(f"chromium did not answer {method} in time; see {self.log}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def drain(self, seconds: float) -> None:
        """Collect events for `seconds` (bounded by the deadline)."""
        until = min(time.monotonic() + seconds, self.deadline)
        while (event := self._read(until)) is not None:
            self.events.append(event)

    def _read(self, until: float) -> dict[str, Any] | None:
        while b"\0" not in self._buffer:
            remaining = until - time.monotonic()
            if remaining <= 0 or not select.select([self._reader], [], [], remaining)[0]:
                return None
            chunk = os.read(self._reader, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium closed the DevTools pipe; see {self.log}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def close(self) -> None:
        """Ask politely, then end the browser's process group (only processes we started)."""
        self.deadline = time.monotonic() + 5
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):  # renderers left behind, if any
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        os.close(self._writer)
        os.close(self._reader)


# ---------------------------------------------------------------- helpers for page tests


def offline_browser(profile: Path, served_cert: Path, deadline: float, *reachable: str) -> Chromium:
    """A browser that trusts exactly the test server's certificate and resolves no host
    but localhost (and the `reachable` ones): a page that needs another host fails."""
    excluded = "".join(f", EXCLUDE {host}" for host in ("localhost", *reachable))
    return Chromium(
        profile,
        [
            f"--ignore-certificate-errors-spki-list={spki_pin(served_cert)}",
            f"--host-resolver-rules=MAP * ~NOTFOUND{excluded}",
        ],
        deadline,
    )


def open_tab(
    browser: Chromium, domains: tuple[str, ...] = ("Network", "Log", "Runtime", "Page")
) -> str:
    """A new blank tab with these domains enabled; its session id."""
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    for domain in domains:
        browser.call(f"{domain}.enable", session=session)
    return session


def start_navigation(browser: Chromium, session: str, url: str) -> None:
    """Navigate without waiting for the answer (`Page.navigate` waits for it, which never
    comes while the `Fetch` domain holds the response for the test to rewrite)."""
    browser.call(
        "Runtime.evaluate", {"expression": f"location.href = {json.dumps(url)}"}, session=session
    )


def wait_for_event(
    browser: Chromium, session: str | None, method: str, seconds: float
) -> dict[str, Any] | None:
    """The first event `method` of `session` (None: of the browser), collected before
    or within `seconds`; None if none came."""
    until = min(time.monotonic() + seconds, browser.deadline)
    seen = 0
    while True:
        for event in browser.events[seen:]:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        seen = len(browser.events)
        if time.monotonic() >= until:
            return None
        browser.drain(min(0.1, max(until - time.monotonic(), 0)))


def evaluate(browser: Chromium, session: str, expression: str) -> Any:
    """The value of a JavaScript expression in the tab's page (awaited if a promise)."""
    result = browser.call(
        "Runtime.evaluate",
        {"expression": expression, "awaitPromise": True, "returnByValue": True},
        session=session,
    )
    if "exceptionDetails" in result:
        raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
    return result["result"].get("value")


def local_storage(browser: Chromium, page_url: str) -> dict[str, str]:
    """Everything in localStorage of `page_url`'s origin, read in a new tab opened at that
    page (pick one that runs no script: the tab whose storage is in question may have
    had its scripts blocked, or be no page of that origin at all)."""
    session = open_tab(browser, ("Page", "Runtime"))
    browser.call("Page.navigate", {"url": page_url}, session=session)
    wait_for_event(browser, session, "Page.loadEventFired", 10)
    return evaluate(browser, session, "Object.fromEntries(Object.entries(localStorage))")


def console_messages(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(level, text) of what the page logged, threw, or the browser logged for it (CSP
    violations and blocked scripts among them)."""
    found: list[tuple[str, str]] = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details["text"]
            found.append(("exception", text))
        elif method == "Log.entryAdded":
            found.append((params["entry"]["level"], params["entry"]["text"]))
        elif method == "Runtime.consoleAPICalled":
            found.append(
                (
                    params["type"],
                    " ".join(
                        str(arg.get("value", arg.get("description"))) for arg in params["args"]
                    ),
                )
            )
    return found


def wait_until(browser: Chromium, session: str, expression: str, seconds: float) -> Any:
    """Evaluate `expression` in the page until it is truthy (collecting events between
    tries); its last value, falsy if time ran out."""
    until = min(time.monotonic() + seconds, browser.deadline - 5)
    while True:
        value = evaluate(browser, session, expression)
        if value or time.monotonic() >= until:
            return value
        browser.drain(0.2)
