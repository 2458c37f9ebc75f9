"""The Timeline port on the memory service, for the daily-digest job: the day's episodes of a
scope, the ``daily_digest`` memory (key ``digest:<date>``, so one item per scope and day), and
the digests' statuses. Each call acts as the org it names, as a system principal.

A digest is memory of its scope, shown in that scope's contexts, so it tells only the episodes
of exactly that scope: they are listed with the context match (never another user's, even for
a scope without a user, which a browse read would widen to every user of the agent) and kept
when their scope is the digest's."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import grpc
from google.protobuf import field_mask_pb2
from lore.common.v1 import provenance_pb2, scope_pb2
from lore.memory.v1 import episode_service_pb2 as epb
from lore.memory.v1 import episode_service_pb2_grpc, memory_service_pb2_grpc
from lore.memory.v1 import memory_service_pb2 as mpb
from lore_runtime import request_context
from lore_runtime.errors import AlreadyExists
from lore_runtime.proto_time import to_timestamp

from agent_svc.adapters.grpc_calls import rpc
from agent_svc.adapters.grpc_memories import scope_to_pb
from agent_svc.domain.digest import DayEpisode, Digest
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.digest_ports import StoredDigest

SYSTEM_PRINCIPAL = "system:daily-digests"
TIMEOUT_S = 30.0
PAGE = 200
STATUS_TO_PB = {
    "active": mpb.MEMORY_STATUS_ACTIVE,
    "warm": mpb.MEMORY_STATUS_WARM,
    "archived": mpb.MEMORY_STATUS_ARCHIVED,
}
STATUS_FROM_PB = {value: name for name, value in STATUS_TO_PB.items()}


class GrpcTimeline:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._episodes = episode_service_pb2_grpc.EpisodeServiceStub(channel)
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(channel)

    async def _call(self, org_id: str, method, request):
        with request_context.bound(request_context.RequestContext(org_id, SYSTEM_PRINCIPAL)):
            return await rpc(method(request, timeout=TIMEOUT_S))

    async def episodes(self, org_id: str, scope: Scope, start: datetime, end: datetime) -> list[DayEpisode]:
        found, token, wanted = [], "", scope_to_pb(scope)
        while True:
            request = epb.ListEpisodesRequest(
                scope=scope_to_pb(scope),
                page_size=PAGE,
                page_token=token,
                ended_after=to_timestamp(start),
                scope_match=scope_pb2.SCOPE_MATCH_CONTEXT,
            )
            page = await self._call(org_id, self._episodes.ListEpisodes, request)
            found += [
                episode
                for episode in page.episodes
                if episode.ended_at.ToDatetime().timestamp() < end.timestamp() and episode.scope == wanted
            ]
            if not (token := page.next_page_token):
                break
        found.sort(key=lambda episode: (episode.ended_at.seconds, episode.ended_at.nanos))
        return [
            DayEpisode(
                summary=episode.summary,
                decisions=tuple(episode.decisions),
                # A resolved thread is no longer "still open".
                open_threads=tuple(
                    thread.topic for thread in episode.open_threads if thread.status != epb.THREAD_STATUS_RESOLVED
                ),
                action_items=tuple(item.task for item in episode.action_items),
                topics=tuple(episode.key_topics),
            )
            for episode in found
        ]

    async def write_digest(self, org_id: str, scope: Scope, digest: Digest) -> None:
        memory = mpb.MemoryInput(
            content=digest.text,
            memory_type=mpb.MEMORY_TYPE_DAILY_DIGEST,
            scope=scope_to_pb(scope),
            importance=0.6,
            metadata={"date": digest.day.isoformat(), "episodes": str(digest.episodes)},
            valid_at=to_timestamp(datetime.combine(digest.day, time(12), tzinfo=UTC)),  # midday of the day it tells
            idempotency_key=f"digest:{digest.day.isoformat()}",
            provenance=provenance_pb2.Provenance(source=provenance_pb2.PROVENANCE_SOURCE_EPISODE_EXTRACTION),
        )
        try:
            await self._call(org_id, self._memories.Remember, mpb.RememberRequest(memories=[memory]))
        except AlreadyExists as refused:
            if refused.reason != "IDEMPOTENCY_KEY_REUSED":
                raise
            # The day's digest exists with other text (a late episode): a key never overwrites, so the
            # rewrite is an update of that item, which keeps one digest per scope and day.
            rewrite = mpb.Memory(id=refused.metadata["id"], content=memory.content, metadata=memory.metadata)
            mask = field_mask_pb2.FieldMask(paths=["content", "metadata"])
            await self._call(
                org_id, self._memories.UpdateMemory, mpb.UpdateMemoryRequest(memory=rewrite, update_mask=mask)
            )

    async def digests(self, org_id: str, scope: Scope) -> list[StoredDigest]:
        found, token = [], ""
        while True:
            request = mpb.ListMemoriesRequest(
                scope=scope_to_pb(scope),
                memory_types=[mpb.MEMORY_TYPE_DAILY_DIGEST],
                statuses=[mpb.MEMORY_STATUS_ACTIVE, mpb.MEMORY_STATUS_WARM],
                page_size=PAGE,
                page_token=token,
            )
            page = await self._call(org_id, self._memories.ListMemories, request)
            found += [
                StoredDigest(memory.id, date.fromisoformat(memory.metadata["date"]), STATUS_FROM_PB[memory.status])
                for memory in page.memories
                if "date" in memory.metadata
            ]
            if not (token := page.next_page_token):
                return found

    async def set_status(self, org_id: str, digest_id: str, status: str) -> None:
        request = mpb.UpdateMemoryRequest(
            memory=mpb.Memory(id=digest_id, status=STATUS_TO_PB[status]),
            update_mask=field_mask_pb2.FieldMask(paths=["status"]),
        )
        await self._call(org_id, self._memories.UpdateMemory, request)
