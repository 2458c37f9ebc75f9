"""Long-term memory and episode routes → ``lore.memory.v1.MemoryService`` / ``EpisodeService``, and
``POST /v1/memories:forget`` → ``lore.agent.v1.AgentService.ForgetAbout`` (forgetting needs the agent:
it archives memories and invalidates the beliefs they support)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.memory.v1 import episode_service_pb2, memory_service_pb2
from lore_runtime import errors

from gateway_svc.api.http.calls import body_message, with_path_id
from gateway_svc.api.http.forwarding import declared_route, forward, guard, owned, readable
from gateway_svc.api.http.upstreams import AGENT, EPISODES, MEMORY
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import Caller

router = APIRouter()  # each route tagged as the route table says

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
    "memories.remember",
    rpc=MEMORY.rpc("Remember"),
    example=REMEMBER_EXAMPLE,
    pin=True,
)
forward(
    router,
    "memories.search",
    rpc=MEMORY.rpc("Recall"),
    example=RECALL_EXAMPLE,
    pin=True,
)
# Spoken memory control as a call: the agent finds and archives what the user's records say about
# ``about`` (AgentService.ForgetAbout, docs/agent.md "Forgetting on request"); a pinned key, its own user only.
forward(
    router,
    "memories.forgetAbout",
    rpc=AGENT.rpc("ForgetAbout"),
    example=FORGET_EXAMPLE,
    pin=True,
)
forward(
    router,
    "memories.listMemories",
    rpc=MEMORY.rpc("ListMemories"),
    example={
        "scope.userId": "u-1",
        "memoryTypes": ["MEMORY_TYPE_FACT"],
        "pageSize": 20,
        "orderBy": "MEMORY_ORDER_NEWEST",
    },
    pin=True,
)
forward(
    router,
    "memories.getMemory",
    rpc=MEMORY.rpc("GetMemory"),
    path_field="id",
    after=readable("memory"),
)


@declared_route(router, "memories.updateMemory", example=UPDATE_EXAMPLE)
async def update_memory(
    memory_id: str, request: Request, caller: Caller = Depends(guard("memories.updateMemory"))
) -> Response:
    message = await body_message(request, memory_service_pb2.UpdateMemoryRequest)
    if message.memory.id and message.memory.id != memory_id:
        raise errors.InvalidArgument("memory.id", "must match the id in the path, or be left out")
    message.memory.id = memory_id
    await CHANGEABLE_MEMORY(request, caller, memory_id)
    return ProtoJSONResponse(await MEMORY.rpc("UpdateMemory")(request, caller, message))


forward(
    router,
    "memories.forgetMemory",
    rpc=MEMORY.rpc("ForgetMemory"),
    path_field="id",
    before=CHANGEABLE_MEMORY,
)
forward(
    router,
    "memories.listEpisodes",
    rpc=EPISODES.rpc("ListEpisodes"),
    example={"scope.userId": "u-1", "pageSize": 10, "minSalience": 0.2},
    pin=True,
)
forward(
    router,
    "memories.listOpenThreads",
    rpc=EPISODES.rpc("ListOpenThreads"),
    example={"scope.userId": "u-1", "pageSize": 10},
    pin=True,
)


@declared_route(router, "memories.resolveThread", example={"resolution": "Answered: the visa came through on Monday."})
async def resolve_thread(
    episode_id: str, thread_index: str, request: Request, caller: Caller = Depends(guard("memories.resolveThread"))
) -> Response:
    message = with_path_id(
        await body_message(request, episode_service_pb2.ResolveThreadRequest, empty=True), "episode_id", episode_id
    )
    # ASCII digits only: str.isdigit() takes "¹" too, which int() refuses.
    if not (thread_index.isascii() and thread_index.isdigit()) or int(thread_index) > MAX_THREAD_INDEX:
        raise errors.InvalidArgument("threadIndex", "must be the thread's index in the episode: 0, 1, 2...")
    if message.thread_index and message.thread_index != int(thread_index):
        raise errors.InvalidArgument("threadIndex", "must match the index in the path, or be left out")
    message.thread_index = int(thread_index)
    await CHANGEABLE_EPISODE(request, caller, episode_id)  # a pinned caller resolves its own user's threads
    return ProtoJSONResponse(await EPISODES.rpc("ResolveThread")(request, caller, message))
