"""docs/deploy.md's property affinity (issue 67): nginx hashing the property a request
names to one of two `floorgate serve` processes. Every request of one property reaches
the same process, the properties spread over both, other requests spread too, and each
process keeps only its own properties' answers.

The configuration is the guide's: its main block with its `upstream` replaced by the
affinity block, both copied out of docs/deploy.md (ports and paths replaced)."""

from __future__ import annotations

import re
import signal
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from rest.ops.tls import ensure_local_certificates
from tests.e2e.test_nginx import GUIDE, NGINX, demo_database, documented_config, nginx_main
from tests.servers import FLOORGATE, cli_env, free_port, wait_for_port

pytestmark = pytest.mark.e2e
__all__ = ["demo_database"]  # the fixture, shared with tests/e2e/test_nginx.py
PROPERTIES = [f"property-{n:02d}" for n in range(16)]
ASKED = 3  # requests per property


def affinity_block(ports: list[int]) -> str:
    """The guide's second nginx block, with one `server` line per port."""
    blocks = re.findall(r"```nginx\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2, "docs/deploy.md has no affinity block"
    block = blocks[1]
    servers = re.findall(r"^ *server 127\.0\.0\.1:\d+;\n", block, re.M)
    assert len(servers) == 2, servers
    block = block.replace(servers[1], "")
    lines = "".join(f"    server 127.0.0.1:{port};\n" for port in ports)
    return block.replace(servers[0], lines)


def config(proxy_port: int, ports: list[int], cert: Path, key: Path) -> str:
    main = documented_config(proxy_port, ports[0], cert, key)
    upstream = re.search(r"upstream floorgate \{.*?\n\}\n", main, re.S)
    assert upstream, "no upstream block"
    return main.replace(upstream.group(0), affinity_block(ports))


@pytest.mark.skipif(NGINX is None, reason="nginx not installed (make test installs it as root)")
def test_each_property_is_served_by_one_process_and_they_spread(tmp_path, db_server, demo_database):
    settings, key = demo_database
    certs = ensure_local_certificates(tmp_path / "tls")
    proxy_port, ports = free_port(), [free_port(), free_port()]
    public = f"https://localhost:{proxy_port}"
    env = {**cli_env(db_server, settings, tmp_path), "FLOORGATE_PUBLIC_URL": public}
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    (prefix / "nginx.conf").write_text(
        nginx_main(prefix, config(proxy_port, ports, certs.cert, certs.key))
    )
    logs = [tmp_path / f"serve-{port}.log" for port in ports]
    served = []
    for port, log in zip(ports, logs, strict=True):
        command = [FLOORGATE, "serve", "--behind-proxy", "--proxy-address", "127.0.0.1"]
        command += ["--host", "127.0.0.1", "--port", str(port)]
        output = log.open("w")
        served.append(
            (subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT), output)
        )
    nginx = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for port, (process, _), log in zip(ports, served, logs, strict=True):
            wait_for_port(port, process, log=log)
        tls = ssl.create_default_context(cafile=str(certs.ca_cert))
        with httpx.Client(
            base_url=public, verify=tls, timeout=10, headers={"API-Key": key}
        ) as client:
            deadline = time.monotonic() + 10
            while True:  # nginx starts in a moment
                try:
                    client.get("/healthz")
                    break
                except httpx.TransportError:
                    assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                    assert time.monotonic() < deadline, "nginx did not listen"
                    time.sleep(0.1)
            for _ in range(ASKED):
                for name in PROPERTIES:
                    answer = client.get(f"/v1/units?asset={name}&per-page=1")
                    assert answer.status_code in (200, 404), answer.text
                    assert client.get(f"/v1/assets/{name}").status_code in (200, 404)
            for _ in range(20):  # no property named: spread over both
                assert client.get("/v1/maps?per-page=1").status_code == 200
    finally:
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(timeout=20)
        for process, output in served:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=20)
            output.close()
    texts = [log.read_text() for log in logs]
    for name in PROPERTIES:
        by_query = [text.count(f"path=/v1/units?asset={name}&") for text in texts]
        by_path = [text.count(f"path=/v1/assets/{name} ") for text in texts]
        assert sorted(by_query) == [0, ASKED], (name, by_query)  # one process, every time
        assert sorted(by_path) == [0, ASKED], (name, by_path)
    holding = [sum(f"asset={name}&" in text for name in PROPERTIES) for text in texts]
    assert all(count >= 2 for count in holding), holding  # both hold properties
    spread = [text.count("path=/v1/maps?per-page=1 ") for text in texts]
    assert sum(spread) == 20 and min(spread) >= 2, spread
