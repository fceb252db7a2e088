"""The client's address and scheme behind a trusted proxy (`--behind-proxy`): what a peer
among `FLOORGATE_PROXY_ADDRESSES` says in `X-Forwarded-For` and `X-Forwarded-Proto`.

uvicorn's proxy headers took any text of `X-Forwarded-For` as the client's address (issue
63, finding 9): where the proxy passes the client's header on (`*`, a proxy that forwards
it unchanged, a local process), 20 KB of text became an access-log field and a rate
bucket of its own, one per value, and the process kept them. So `rest.middleware.Boundary`
reads the headers itself, and an item of `X-Forwarded-For` is the client's address only
when it is an IP address: IPv4 or IPv6, written as Python writes it (`2001:DB8::0:1` is
`2001:db8::1`), with a port only where proxies write one (`192.0.2.7:4711`,
`[2001:db8::1]:4711`), no zone (`%eth0`). Anything else leaves the peer's address (the
proxy's), so such clients share one address's limits. `Forwarded` (RFC 7239) is not read.
"""

from __future__ import annotations

import functools
import ipaddress

from starlette.types import Scope

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# Characters of one item of X-Forwarded-For that can be an address: the longest, an IPv6
# address with an IPv4 tail, in brackets, with a port, is 53.
MAX_ITEM = 64
SCHEMES = frozenset({"http", "https", "ws", "wss"})


def address_of(item: str) -> tuple[IpAddress, int] | None:
    """The address and port of one item of X-Forwarded-For, or None when it is not one."""
    item = item.strip()
    if len(item) > MAX_ITEM:
        return None
    port = None
    if item.startswith("["):  # [IPv6] or [IPv6]:port
        host, bracket, rest = item[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    elif item.count(":") == 1:  # IPv4:port (an IPv6 address has two colons or more)
        host, _, port = item.partition(":")
    else:
        host = item
    if port is not None and not (port.isascii() and port.isdigit() and int(port) < 65536):
        return None
    if "%" in host:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if item.startswith("[") and address.version != 6:
        return None  # an IPv4 address in brackets
    return address, int(port or 0)


class Forwarding:
    """Which peers are trusted proxies, and what their headers say of the client."""

    def __init__(self, trusted: tuple[str, ...]) -> None:
        self.everyone = "*" in trusted  # checked at start: `*` alone
        self.addresses: set[IpAddress] = set()
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for item in trusted:
            if item == "*":
                continue
            if "/" in item:
                self.networks.append(ipaddress.ip_network(item))
            else:
                self.addresses.add(ipaddress.ip_address(item))
        # Peers are addresses of sockets: few, and short.
        self._peer_trusted = functools.lru_cache(maxsize=1024)(self._text_trusted)

    def trusts(self, address: IpAddress) -> bool:
        return address in self.addresses or any(address in net for net in self.networks)

    def _text_trusted(self, host: str) -> bool:
        if self.everyone:
            return True
        try:
            return self.trusts(ipaddress.ip_address(host))
        except ValueError:
            return False

    def apply(self, scope: Scope) -> None:
        """Set the scope's client and scheme from a trusted peer's headers, as uvicorn's
        proxy headers did (the client is the last item that is not a trusted proxy, or
        the first with `*`), but only ever to an IP address."""
        peer = scope.get("client")
        if not peer or not self._peer_trusted(peer[0]):
            return
        proto: bytes | None = None
        forwarded: list[bytes] = []
        for name, value in scope.get("headers", ()):
            if name == b"x-forwarded-proto":
                proto = value
            elif name == b"x-forwarded-for":
                forwarded.append(value)
        if proto is not None:
            scheme = proto.decode("latin-1").strip()
            if scheme in SCHEMES:
                websocket = scope["type"] == "websocket"
                scope["scheme"] = scheme.replace("http", "ws") if websocket else scheme
        if forwarded:
            client = self.client_of(b",".join(forwarded).decode("latin-1"))
            if client is not None:
                scope["client"] = (str(client[0]), client[1])

    def client_of(self, header: str) -> tuple[IpAddress, int] | None:
        """The client's address in X-Forwarded-For, or None: the peer's stays."""
        items = header.split(",")
        if self.everyone:
            return address_of(items[0])
        for item in reversed(items):  # each proxy appends the address it saw
            found = address_of(item)
            if found is None:
                return None  # no address where the client's should be
            if not self.trusts(found[0]):
                return found
        return address_of(items[0])  # all trusted proxies: the first is the client
