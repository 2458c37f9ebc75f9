"""``lore``: the local stack and the operator's chores.

lore up        start the whole system (embedded back ends unless URLs are configured)
lore health    exit 0 only when every service is SERVING (asks GET /v1/status)
lore migrate   apply every service's database migrations
lore doctor    check every dependency and say what is wrong and how to fix it
lore reindex   re-embed every memory with the configured model (through the memory service)
lore turns import FILE.jsonl   historical turns into a session (through the gateway)
lore mcp --user U --agent A    Lore's tools as an MCP server over stdio (through the gateway)
lore keys create|list|revoke   an org's API keys (as the schema owner, like lore migrate)
lore decay run / lore revalidate run   the maintenance jobs, by hand, for one org (through the services)
lore jobs list / lore jobs retry       the agent's job queue: counts by state, dead-lettered jobs queued again
lore org export / lore org import      one org as JSON lines (through the memory and observations services)
lore erasure purge                     erased data out of the stores' files (Qdrant, Redis, Postgres)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from agent_svc.domain.jobs import KINDS
from gateway_svc.domain.credentials import ALL_SCOPES

from lore_cli import doctor, erasure, health, keys, mcp_command, migrate, ops, org_transfer, reindex, turns_import, up
from lore_cli.service_calls import DEFAULT_ORG


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="lore", description="Memory for conversational agents.")
    commands = parser.add_subparsers(dest="command", required=True)

    up_parser = commands.add_parser("up", help="run the local stack until Ctrl-C")
    up_parser.add_argument("--data-dir", help="where embedded back ends keep their data (LORE_DATA_DIR)")

    health_parser = commands.add_parser("health", help="exit non-zero unless every service is SERVING")
    health_parser.add_argument("--url", help="gateway URL (default http://LORE_GATEWAY_ADDR)")
    health_parser.add_argument("--wait", type=float, default=0.0, help="seconds to wait for SERVING")

    commands.add_parser("migrate", help="apply database migrations (LORE_MIGRATIONS_DATABASE_URL or the local stack)")

    doctor_parser = commands.add_parser("doctor", help="check every dependency; say what is wrong and how to fix it")
    doctor_parser.add_argument("--json", action="store_true", help="the findings as JSON")

    reindex_parser = commands.add_parser(
        "reindex", help="re-embed every memory and episode with the configured model (LORE_MEMORY_ADDR)"
    )
    reindex_parser.add_argument("--force", action="store_true", help="re-embed even when the model has not changed")

    turns_commands = command_group(commands, "turns", "the transcript")
    import_parser = turns_commands.add_parser(
        "import",
        help="historical turns (JSON lines) into a session, with their real timestamps",
        epilog=turns_import.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    import_parser.add_argument("file", type=Path, help="one turn per line: role, content, createdAt, metadata")
    import_parser.add_argument("--session", default="", help="an existing session (else a new one is started)")
    for name in ("user", "agent", "team"):
        import_parser.add_argument(f"--{name}", default="", help=f"the new session's {name} id")
    import_parser.add_argument(
        "--from-line", type=line_number, default=1, metavar="N", help="start at line N (the lines before are not sent)"
    )
    import_parser.add_argument(
        "--skip-refused",
        action="store_true",
        help="leave out a turn the gateway refuses and go on; the refused lines are listed at the end (exit 1)",
    )

    mcp_command.add_parser(commands)

    keys_commands = command_group(
        commands, "keys", "an org's API keys (as LORE_MIGRATIONS_DATABASE_URL, LORE_DATABASE_URL or the local stack)"
    )
    create_parser = keys_commands.add_parser("create", help="a new API key, printed once on stdout")
    create_parser.add_argument("--org", required=True, help="the key's org (its tenant)")
    create_parser.add_argument("--principal", required=True, help="who the key acts as")
    create_parser.add_argument(
        "--scope",
        action="append",
        default=[],
        choices=ALL_SCOPES,
        metavar="SCOPE",
        help=f"a scope to grant, repeat for more: {', '.join(ALL_SCOPES)}",
    )
    create_parser.add_argument("--name", default="", help="a label for the key")
    create_parser.add_argument(
        "--user", default=None, help="pin the key to this user: it acts for them only (403 USER_PINNED otherwise)"
    )
    list_parser = keys_commands.add_parser("list", help="the org's keys (never the keys themselves)")
    list_parser.add_argument("--org", required=True)
    revoke_parser = keys_commands.add_parser(
        "revoke", help="revoke a key (gateways refuse it within their key cache, ≤ 10 s)"
    )
    revoke_parser.add_argument("id", help="the key's id, as `lore keys list` shows it")
    revoke_parser.add_argument("--org", required=True)
    add_operations(commands)
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
    if args.command == "doctor":
        sys.exit(asyncio.run(doctor.run(environ, as_json=args.json)))
    if args.command == "reindex":
        sys.exit(asyncio.run(reindex.run(environ, force=args.force)))
    if args.command == "turns":
        scope = {key: value for key, value in (("userId", args.user), ("agentId", args.agent), ("teamId", args.team))}
        imported = turns_import.run(
            environ,
            args.file,
            session_id=args.session,
            scope=scope,
            from_line=args.from_line,
            skip_refused=args.skip_refused,
        )
        sys.exit(asyncio.run(imported))
    if args.command == "mcp":
        sys.exit(asyncio.run(mcp_command.run(environ, args)))
    if args.command in ("decay", "revalidate", "jobs", "org", "erasure"):
        sys.exit(asyncio.run(run_operation(args, environ)))
    if args.command == "keys":
        if args.keys_command == "create":
            made = keys.create(
                environ, org=args.org, principal=args.principal, scopes=args.scope, name=args.name, user=args.user
            )
            sys.exit(asyncio.run(made))
        if args.keys_command == "list":
            sys.exit(asyncio.run(keys.list_keys(environ, org=args.org)))
        sys.exit(asyncio.run(keys.revoke(environ, args.id, org=args.org)))


def add_operations(commands: argparse._SubParsersAction) -> None:
    """`decay run`, `revalidate run`, `jobs list|retry`, `org export|import`: admin RPCs of the running services."""
    org_help = f"the org to act for (default {DEFAULT_ORG}, the local stack's)"
    decay_run = command_group(commands, "decay", "memory decay (MemoryService.RunDecay, LORE_MEMORY_ADDR)").add_parser(
        "run", help="materialise the current salience of the org's memories now"
    )
    decay_run.add_argument("--org", default=DEFAULT_ORG, help=org_help)
    revalidate_commands = command_group(
        commands, "revalidate", "belief revalidation (ObservationService.RunRevalidation, LORE_OBSERVATIONS_ADDR)"
    )
    revalidate_run = revalidate_commands.add_parser(
        "run", help="recompute freshness and mark beliefs past their revalidation date stale"
    )
    revalidate_run.add_argument("--org", default=DEFAULT_ORG, help=org_help)
    revalidate_run.add_argument("--agent", default="", help="only this agent's beliefs (default: every agent)")
    jobs_commands = command_group(commands, "jobs", "the agent's background job queue (LORE_AGENT_ADDR)")
    jobs_list = jobs_commands.add_parser("list", help="the org's jobs by kind: queued, running, retrying, dead")
    jobs_list.add_argument("--org", default=DEFAULT_ORG, help=org_help)
    jobs_retry = jobs_commands.add_parser("retry", help="queue the org's dead-lettered jobs again")
    jobs_retry.add_argument("--org", default=DEFAULT_ORG, help=org_help)
    jobs_retry.add_argument(
        "--kind", action="append", default=[], choices=KINDS, help="only this kind, repeat for more (default: all)"
    )
    org_commands = command_group(
        commands, "org", "one org as JSON lines (LORE_MEMORY_ADDR, LORE_OBSERVATIONS_ADDR; docs/operations.md)"
    )
    export_parser = org_commands.add_parser("export", help="every memory, episode, belief and engagement record")
    export_parser.add_argument("--org", required=True, help="the org to export")
    export_parser.add_argument("--output", type=Path, help="the file to write (default: stdout)")
    import_parser = org_commands.add_parser(
        "import", help="an export into --org (ids kept for the same org, re-derived for a copy)"
    )
    import_parser.add_argument("--org", required=True, help="the org to write into (the file's org is informational)")
    import_parser.add_argument("--input", type=Path, help="the export file (default: stdin)")
    erasure_commands = command_group(commands, "erasure", "erasure chores (docs/operations.md, Erasure and purge)")
    purge_parser = erasure_commands.add_parser(
        "purge", help="rewrite Qdrant's, Redis's and Postgres's files without erased data (LORE_MEMORY_ADDR)"
    )
    purge_parser.add_argument(
        "--full", action="store_true", help="VACUUM FULL: rewrite every table (locks each while it runs)"
    )


def line_number(text: str) -> int:
    """A line of the file, from 1."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"a line number is a whole number from 1, not {text!r}")
    return number


def command_group(commands: argparse._SubParsersAction, name: str, help_text: str) -> argparse._SubParsersAction:
    """A command with subcommands (``lore keys create``): the one given lands in ``args.<name>_command``."""
    return commands.add_parser(name, help=help_text).add_subparsers(dest=f"{name}_command", required=True)


async def run_operation(args: argparse.Namespace, environ: dict[str, str]) -> int:
    if args.command == "erasure":
        return await erasure.purge(environ, full=args.full)
    if args.command == "decay":
        return await ops.run_decay(environ, org=args.org)
    if args.command == "revalidate":
        return await ops.run_revalidation(environ, org=args.org, agent=args.agent)
    if args.command == "jobs":
        if args.jobs_command == "list":
            return await ops.list_jobs(environ, org=args.org)
        return await ops.retry_jobs(environ, org=args.org, kinds=args.kind)
    if args.org_command == "export":
        return await org_transfer.export_org(environ, org=args.org, output=args.output)
    return await org_transfer.import_org(environ, org=args.org, source=args.input)


if __name__ == "__main__":
    main()
