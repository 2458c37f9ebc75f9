"""The two sides a store contract case runs on: the in-memory fake, or the Postgres adapter."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack

from lore_runtime.stores import open_postgres


async def fake_or_postgres(
    database, fake: Callable[[], object], adapter: Callable[..., object]
) -> AsyncIterator[object]:
    """The fake when ``database`` is None, else ``adapter`` on a pool of the migrated database."""
    if database is None:
        yield fake()
        return
    async with AsyncExitStack() as stack:
        yield adapter(await open_postgres(stack, database.app_dsn, vectors=True))
