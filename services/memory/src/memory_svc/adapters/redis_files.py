"""Redis's part of a purge: a deleted key (a session's working memory) stays in the append-only file
until Redis rewrites it, and in an RDB snapshot until the next one. ``compact`` asks for both
rewrites (BGREWRITEAOF; BGSAVE when snapshots are configured) and waits until Redis has finished:
Redis writes the new file from the data as it is now, then deletes the old ones.

A rewrite that was already running when the purge began may have started before the erasure, so
the purge waits for it and asks for one of its own. A server that refuses the commands (a managed
Redis may rename them) is reported "skipped" with Redis's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis
from redis import exceptions as redis_errors

from memory_svc.usecases.maintenance_ports import PurgedStore

POLL_SECONDS = 0.05


class RedisFiles:
    def __init__(self, client: redis.Redis, *, timeout: float = 120.0) -> None:
        self._client = client
        self._timeout = timeout

    async def compact(self) -> list[PurgedStore]:
        try:
            async with asyncio.timeout(self._timeout):
                done = []
                if int((await self._persistence()).get("aof_enabled", 0)):
                    await self._rewrite_aof()
                    done.append("append-only file rewritten")
                if await self._snapshots_configured():
                    await self._snapshot()
                    done.append("snapshot rewritten")
        except redis_errors.ResponseError as error:
            return [PurgedStore("redis", "skipped", detail=f"Redis refused: {error}")]
        except TimeoutError:
            raise TimeoutError(f"Redis did not finish rewriting its files within {self._timeout:g} s") from None
        if not done:
            return [PurgedStore("redis", "skipped", detail="no persistence: nothing on disk to rewrite")]
        return [PurgedStore("redis", "compacted", detail="; ".join(done))]

    async def _persistence(self) -> dict[str, Any]:
        info = await self._client.info("persistence")
        return {str(key): value for key, value in info.items()}

    async def _rewrite_aof(self) -> None:
        flags = ("aof_rewrite_in_progress", "aof_rewrite_scheduled")
        await self._idle(*flags)
        before = int((await self._persistence()).get("aof_rewrites", 0))
        await self._ask(self._client.bgrewriteaof, flags)
        while True:
            state = await self._persistence()
            busy = any(int(state.get(flag, 0)) for flag in flags)
            if not busy and int(state.get("aof_rewrites", before + 1)) > before:
                if state.get("aof_last_bgrewrite_status", "ok") not in ("ok", b"ok"):
                    raise redis_errors.ResponseError("the append-only file rewrite failed (see Redis's log)")
                return
            await asyncio.sleep(POLL_SECONDS)

    async def _snapshots_configured(self) -> bool:
        """Whether Redis writes RDB snapshots (``save`` points); a server that hides its configuration
        is assumed to, so its snapshot is rewritten too."""
        try:
            configured = await self._client.config_get("save")
        except redis_errors.ResponseError:
            return True
        values = [value.decode() if isinstance(value, bytes) else str(value) for value in configured.values()]
        return any(value.strip() for value in values)

    async def _snapshot(self) -> None:
        flags = ("rdb_bgsave_in_progress",)
        await self._idle(*flags)
        before = int((await self._persistence()).get("rdb_last_save_time", 0))
        await self._ask(self._client.bgsave, flags)
        while True:
            state = await self._persistence()
            if not int(state.get("rdb_bgsave_in_progress", 0)):
                if state.get("rdb_last_bgsave_status", "ok") not in ("ok", b"ok"):
                    raise redis_errors.ResponseError("the snapshot failed (see Redis's log)")
                if int(state.get("rdb_last_save_time", 0)) >= before:
                    return
            await asyncio.sleep(POLL_SECONDS)

    async def _ask(self, command: Callable[[], Awaitable[Any]], flags: tuple[str, ...]) -> None:
        """Send ``command`` (BGREWRITEAOF or BGSAVE); when Redis answers that a rewrite is already in
        progress (one started in between), wait until its ``flags`` clear and send it again."""
        try:
            await command()
        except redis_errors.ResponseError as error:
            if "already in progress" not in str(error):
                raise
            await self._idle(*flags)
            await command()

    async def _idle(self, *flags: str) -> None:
        while True:
            state = await self._persistence()
            if not any(int(state.get(flag, 0)) for flag in flags):
                return
            await asyncio.sleep(POLL_SECONDS)
