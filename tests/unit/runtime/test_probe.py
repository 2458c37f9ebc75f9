"""``python -m lore_runtime.probe``, the compose healthcheck: 0 only for SERVING / HTTP 200."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from lore_runtime.probe import main

SERVICE = "lore.memory.v1.MemoryService"


@pytest.fixture
def health_server() -> Iterator[tuple[str, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        server.stop(None)


def test_grpc_is_healthy_only_while_the_service_serves(health_server, capsys):
    address, servicer = health_server
    servicer.set(SERVICE, health_pb2.HealthCheckResponse.SERVING)
    assert main(["grpc", address, SERVICE]) == 0
    assert capsys.readouterr().out.strip() == "SERVING"

    servicer.set(SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
    assert main(["grpc", address, SERVICE]) == 1
    assert capsys.readouterr().err.strip() == "NOT_SERVING"
    assert main(["grpc", address, "lore.unknown.v1.Nothing"]) == 1


def test_grpc_unreachable_is_unhealthy(capsys):
    assert main(["--timeout", "1", "grpc", "127.0.0.1:1", SERVICE]) == 1  # port 1: nobody listens there
    assert "UNREACHABLE" in capsys.readouterr().err


class _Answers(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/readyz" else 503)
        self.end_headers()

    def log_message(self, *args) -> None:  # keep the test output quiet
        pass


def test_http_is_healthy_only_on_200(capsys):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert main(["http", f"{base}/readyz"]) == 0
        assert main(["http", f"{base}/healthz-of-nothing"]) == 1
        assert "HTTP 503" in capsys.readouterr().err
    finally:
        server.shutdown()
        server.server_close()


def test_it_runs_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "lore_runtime.probe", "--timeout", "0.5", "grpc", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 1 and result.stderr.startswith("UNREACHABLE"), result.stderr
