"""End-to-end tests of connections against `floorgate serve` over TLS: the floods of
issue 45 (refused heads in a loop, WebSocket upgrades past the limit)."""
