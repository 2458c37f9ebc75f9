"""``lore``: the local stack and the operator's chores.

lore up        start the whole system (embedded back ends unless URLs are configured)
lore health    exit 0 only when every service is SERVING (asks GET /v1/status)
lore migrate   apply every service's database migrations
lore reindex   re-embed every memory with the configured model (through the memory service)
lore turns import FILE.jsonl   historical turns into a session (through the gateway)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from lore_cli import health, migrate, reindex, turns_import, up


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="lore", description="Memory for conversational agents.")
    commands = parser.add_subparsers(dest="command", required=True)

    up_parser = commands.add_parser("up", help="run the local stack until Ctrl-C")
    up_parser.add_argument("--data-dir", help="where embedded back ends keep their data (LORE_DATA_DIR)")

    health_parser = commands.add_parser("health", help="exit non-zero unless every service is SERVING")
    health_parser.add_argument("--url", help="gateway URL (default http://LORE_GATEWAY_ADDR)")
    health_parser.add_argument("--wait", type=float, default=0.0, help="seconds to wait for SERVING")

    commands.add_parser("migrate", help="apply database migrations (LORE_MIGRATIONS_DATABASE_URL or the local stack)")

    reindex_parser = commands.add_parser(
        "reindex", help="re-embed every memory and episode with the configured model (LORE_MEMORY_ADDR)"
    )
    reindex_parser.add_argument("--force", action="store_true", help="re-embed even when the model has not changed")

    turns_parser = commands.add_parser("turns", help="the transcript")
    turns_commands = turns_parser.add_subparsers(dest="turns_command", required=True)
    import_parser = turns_commands.add_parser(
        "import", help="historical turns (JSON lines) into a session, with their real timestamps"
    )
    import_parser.add_argument("file", type=Path, help="one turn per line: role, content, createdAt, metadata")
    import_parser.add_argument("--session", default="", help="an existing session (else a new one is started)")
    for name in ("user", "agent", "team"):
        import_parser.add_argument(f"--{name}", default="", help=f"the new session's {name} id")
    args = parser.parse_args(argv)
    environ = dict(os.environ)
    if args.command == "up":
        if args.data_dir:
            environ["LORE_DATA_DIR"] = args.data_dir
        sys.exit(asyncio.run(up.run(environ)))
    if args.command == "health":
        sys.exit(asyncio.run(health.run(environ, url=args.url, wait=args.wait)))
    if args.command == "migrate":
        sys.exit(asyncio.run(migrate.run(environ)))
    if args.command == "reindex":
        sys.exit(asyncio.run(reindex.run(environ, force=args.force)))
    if args.command == "turns":
        scope = {key: value for key, value in (("userId", args.user), ("agentId", args.agent), ("teamId", args.team))}
        sys.exit(asyncio.run(turns_import.run(environ, args.file, session_id=args.session, scope=scope)))


if __name__ == "__main__":
    main()
