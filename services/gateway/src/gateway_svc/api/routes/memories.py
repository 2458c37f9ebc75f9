"""Long-term memory and episode routes → ``lore.memory.v1.MemoryService`` / ``EpisodeService``, and
``POST /v1/memories:forget`` → ``lore.agent.v1.AgentService.ForgetAbout`` (forgetting needs the agent:
it archives memories and invalidates the beliefs they support)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.agent.v1 import agent_service_pb2
from lore.memory.v1 import episode_service_pb2, memory_service_pb2
from lore_runtime import errors

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, with_path_id
from gateway_svc.api.forwarding import Body, PathOnly, Query, forward, owned, readable
from gateway_svc.api.openapi import json_body
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.upstreams import AGENT, EPISODES, MEMORY
from gateway_svc.domain.credentials import Caller

router = APIRouter(tags=["memories"])

REMEMBER_EXAMPLE = {
    "memories": [
        {
            "content": "Noor sang with the community choir for the first time yesterday.",
            "memoryType": "MEMORY_TYPE_MESSAGE",
            "scope": {"userId": "u-noor"},
            "validAt": "2023-05-08T13:56:00Z",
            "metadata": {"channel": "chat"},
            "idempotencyKey": "chat-41/turn-3",
        }
    ],
    "requestId": "optional",
}
RECALL_EXAMPLE = {"query": "When did Noor first sing with the choir?", "scope": {"userId": "u-noor"}, "k": 10}
FORGET_EXAMPLE = {"scope": {"userId": "u-noor"}, "about": "my home address", "requestId": "forget-address-1"}
UPDATE_EXAMPLE = {"memory": {"importance": 0.9, "metadata": {"pinned": "yes"}}, "updateMask": "importance,metadata"}


# An episode holds at most 50 threads; a longer number is refused here, before it overflows int32.
MAX_THREAD_INDEX = 1_000


# A caller pinned to a user changes only that user's memories and episodes (``user_pin``).
CHANGEABLE_MEMORY = owned(MEMORY.rpc("GetMemory"), memory_service_pb2.GetMemoryRequest, "memory")
CHANGEABLE_EPISODE = owned(EPISODES.rpc("GetEpisode"), episode_service_pb2.GetEpisodeRequest, "episode")

forward(
    router,
    "POST",
    "/v1/memories",
    "remember",
    summary="Remember a batch of memories (MemoryService.Remember)",
    scopes=("memories:write",),
    rpc=MEMORY.rpc("Remember"),
    message=Body(memory_service_pb2.RememberRequest, REMEMBER_EXAMPLE),
    response=memory_service_pb2.RememberResponse,
    pin=True,
)
forward(
    router,
    "POST",
    "/v1/memories:search",
    "search",
    summary="Recall memories by meaning (MemoryService.Recall)",
    scopes=("memories:read",),
    rpc=MEMORY.rpc("Recall"),
    message=Body(memory_service_pb2.RecallRequest, RECALL_EXAMPLE),
    response=memory_service_pb2.RecallResponse,
    pin=True,
)
# Spoken memory control as a call: the agent finds and archives what the user's records say about
# ``about`` (AgentService.ForgetAbout, docs/agent.md "Forgetting on request"); a pinned key, its own user only.
forward(
    router,
    "POST",
    "/v1/memories:forget",
    "forget_about",
    summary="Forget what a user's memories and beliefs say about something (AgentService.ForgetAbout)",
    scopes=("memories:write",),
    rpc=AGENT.rpc("ForgetAbout"),
    message=Body(agent_service_pb2.ForgetAboutRequest, FORGET_EXAMPLE),
    response=agent_service_pb2.ForgetAboutResponse,
    pin=True,
)
forward(
    router,
    "GET",
    "/v1/memories",
    "list_memories",
    summary="List memories of a scope, paginated (MemoryService.ListMemories)",
    scopes=("memories:read",),
    rpc=MEMORY.rpc("ListMemories"),
    message=Query(
        memory_service_pb2.ListMemoriesRequest,
        {"scope.userId": "u-1", "memoryTypes": ["MEMORY_TYPE_FACT"], "pageSize": 20, "orderBy": "MEMORY_ORDER_NEWEST"},
    ),
    response=memory_service_pb2.ListMemoriesResponse,
    pin=True,
)
forward(
    router,
    "GET",
    "/v1/memories/{memory_id}",
    "get_memory",
    summary="One memory (MemoryService.GetMemory)",
    scopes=("memories:read",),
    rpc=MEMORY.rpc("GetMemory"),
    message=PathOnly(memory_service_pb2.GetMemoryRequest),
    response=memory_service_pb2.GetMemoryResponse,
    path_field="id",
    after=readable("memory"),
)


@router.patch(
    "/v1/memories/{memory_id}",
    summary="Update fields of a memory named by updateMask (MemoryService.UpdateMemory)",
    openapi_extra=json_body(
        memory_service_pb2.UpdateMemoryRequest, UPDATE_EXAMPLE, memory_service_pb2.UpdateMemoryResponse
    ),
)
async def update_memory(
    memory_id: str, request: Request, caller: Caller = Depends(authorized("memories:write"))
) -> Response:
    message = await body_message(request, memory_service_pb2.UpdateMemoryRequest)
    if message.memory.id and message.memory.id != memory_id:
        raise errors.InvalidArgument("memory.id", "must match the id in the path, or be left out")
    message.memory.id = memory_id
    await CHANGEABLE_MEMORY(request, caller, memory_id)
    return ProtoJSONResponse(await MEMORY.rpc("UpdateMemory")(request, caller, message))


forward(
    router,
    "DELETE",
    "/v1/memories/{memory_id}",
    "forget_memory",
    summary="Forget (archive) a memory (MemoryService.ForgetMemory)",
    scopes=("memories:write",),
    rpc=MEMORY.rpc("ForgetMemory"),
    message=PathOnly(memory_service_pb2.ForgetMemoryRequest),
    response=memory_service_pb2.ForgetMemoryResponse,
    path_field="id",
    before=CHANGEABLE_MEMORY,
)
forward(
    router,
    "GET",
    "/v1/episodes",
    "list_episodes",
    summary="Conversation episodes, newest first (EpisodeService.ListEpisodes)",
    scopes=("memories:read",),
    rpc=EPISODES.rpc("ListEpisodes"),
    message=Query(episode_service_pb2.ListEpisodesRequest, {"scope.userId": "u-1", "pageSize": 10, "minSalience": 0.2}),
    response=episode_service_pb2.ListEpisodesResponse,
    pin=True,
    tags=["episodes"],
)
forward(
    router,
    "GET",
    "/v1/open-threads",
    "list_open_threads",
    summary="Open threads of recent episodes, newest first (EpisodeService.ListOpenThreads)",
    scopes=("memories:read",),
    rpc=EPISODES.rpc("ListOpenThreads"),
    message=Query(episode_service_pb2.ListOpenThreadsRequest, {"scope.userId": "u-1", "pageSize": 10}),
    response=episode_service_pb2.ListOpenThreadsResponse,
    pin=True,
    tags=["episodes"],
)


@router.post(
    "/v1/open-threads/{episode_id}/{thread_index}:resolve",
    summary="Resolve an open thread of an episode; idempotent, the body may be left out (EpisodeService.ResolveThread)",
    tags=["episodes"],
    openapi_extra=json_body(
        episode_service_pb2.ResolveThreadRequest,
        {"resolution": "Answered: the visa came through on Monday."},
        episode_service_pb2.ResolveThreadResponse,
    ),
)
async def resolve_thread(
    episode_id: str, thread_index: str, request: Request, caller: Caller = Depends(authorized("memories:write"))
) -> Response:
    message = with_path_id(
        await body_message(request, episode_service_pb2.ResolveThreadRequest, empty=True), "episode_id", episode_id
    )
    if not thread_index.isdigit() or int(thread_index) > MAX_THREAD_INDEX:
        raise errors.InvalidArgument("threadIndex", "must be the thread's index in the episode: 0, 1, 2...")
    if message.thread_index and message.thread_index != int(thread_index):
        raise errors.InvalidArgument("threadIndex", "must match the index in the path, or be left out")
    message.thread_index = int(thread_index)
    await CHANGEABLE_EPISODE(request, caller, episode_id)  # a pinned caller resolves its own user's threads
    return ProtoJSONResponse(await EPISODES.rpc("ResolveThread")(request, caller, message))
