"""End-to-end tests of routes and distance matrices against `floorgate serve` over TLS:
the attacks of issue 45 on them."""
