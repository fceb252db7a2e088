"""Running the service: `floorgate serve` (uvicorn, TLS), logs, metrics and tracing."""
