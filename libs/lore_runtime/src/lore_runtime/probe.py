"""``python -m lore_runtime.probe``: exit 0 only when a Lore server answers that it serves.

A container healthcheck with nothing but the image's Python (docker-compose.yml; the image carries
no curl nor grpc_health_probe):

    python -m lore_runtime.probe grpc 127.0.0.1:9091 lore.memory.v1.MemoryService
    python -m lore_runtime.probe http http://127.0.0.1:8080/readyz

``grpc`` asks grpc.health.v1 over plaintext: the server's health-only listener (``LORE_<SVC>_HEALTH_ADDR``),
which needs no service credential. ``http`` wants a 200. Prints what it found either way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import urllib.error
import urllib.request

import grpc

from lore_runtime.health import serving_status


async def grpc_status(address: str, service: str, timeout: float) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        return await serving_status(channel, service, timeout=timeout)


def http_status(url: str, timeout: float) -> str:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return f"HTTP {response.status}"
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code}"
    except (urllib.error.URLError, OSError) as error:
        return f"UNREACHABLE ({getattr(error, 'reason', error)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lore_runtime.probe", description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the answer")
    kinds = parser.add_subparsers(dest="kind", required=True)
    over_grpc = kinds.add_parser("grpc", help="grpc.health.v1 Check: SERVING or not")
    over_grpc.add_argument("address", help="host:port of the health listener")
    over_grpc.add_argument("service", nargs="?", default="", help="the service name (default: the whole server)")
    over_http = kinds.add_parser("http", help="GET: 200 or not")
    over_http.add_argument("url")
    args = parser.parse_args(argv)
    if args.kind == "grpc":
        status = asyncio.run(grpc_status(args.address, args.service, args.timeout))
        healthy = status == "SERVING"
    else:
        status = http_status(args.url, args.timeout)
        healthy = status == "HTTP 200"
    print(status, file=sys.stdout if healthy else sys.stderr)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
