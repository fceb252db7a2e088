"""End-to-end tests: real `floorgate serve` processes over real TLS, nginx, Chromium."""
