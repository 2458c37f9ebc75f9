"""``lore migrate``: apply every service's schema migrations as the owner role.

Against configured servers it uses ``LORE_MIGRATIONS_DATABASE_URL`` (the owner role),
falling back to ``LORE_DATABASE_URL``; with neither, the local stack's embedded Postgres
under ``LORE_DATA_DIR``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path

from lore_migrations import MigrationError, discover, migrate

from lore_cli.backends import DevStackMissing, start_backends
from lore_cli.schemas import SCHEMAS


async def apply_all(owner_dsn: str, *, quiet: bool = False) -> None:
    for schema, package in SCHEMAS.items():
        report = await migrate(owner_dsn, schema, discover(package))
        if not quiet:
            applied = ", ".join(str(version) for version in report.applied) or "none"
            print(f"lore migrate: {schema}: applied {applied}", file=sys.stderr)


async def run(environ: Mapping[str, str]) -> int:
    owner_dsn = environ.get("LORE_MIGRATIONS_DATABASE_URL") or environ.get("LORE_DATABASE_URL")
    try:
        if owner_dsn:
            await apply_all(owner_dsn)
            return 0

        data_dir = Path(environ.get("LORE_DATA_DIR") or ".lore").resolve()
        async with AsyncExitStack() as stack:
            backends = await start_backends(environ, data_dir, stack, with_redis=False)
            await apply_all(backends.owner_database_url)
        return 0
    except (MigrationError, DevStackMissing) as error:
        print(f"lore migrate: {error}", file=sys.stderr)
        return 1
