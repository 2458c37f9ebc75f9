"""Long-term memory and episode routes → ``lore.memory.v1.MemoryService`` / ``EpisodeService``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc, memory_service_pb2, memory_service_pb2_grpc
from lore_runtime import errors

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, check_owned, query_message, rpc_options, with_path_id
from gateway_svc.api.openapi import json_body, json_response, query_parameters
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.user_pin import check_readable, pin_request
from gateway_svc.domain.credentials import Caller

router = APIRouter(tags=["memories"])

REMEMBER_EXAMPLE = {
    "memories": [
        {
            "content": "Caroline went to the LGBTQ support group yesterday.",
            "memoryType": "MEMORY_TYPE_MESSAGE",
            "scope": {"userId": "conv-26"},
            "validAt": "2023-05-08T13:56:00Z",
            "metadata": {"dia_id": "D1:3"},
            "idempotencyKey": "conv-26/D1:3",
        }
    ],
    "requestId": "optional",
}
RECALL_EXAMPLE = {"query": "When did Caroline go to the support group?", "scope": {"userId": "conv-26"}, "k": 10}
UPDATE_EXAMPLE = {"memory": {"importance": 0.9, "metadata": {"pinned": "yes"}}, "updateMask": "importance,metadata"}


# An episode holds at most 50 threads; a longer number is refused here, before it overflows int32.
MAX_THREAD_INDEX = 1_000


def _memories(request: Request) -> memory_service_pb2_grpc.MemoryServiceStub:
    return memory_service_pb2_grpc.MemoryServiceStub(request.app.state.container.channels["memory"])


def _episodes(request: Request) -> episode_service_pb2_grpc.EpisodeServiceStub:
    return episode_service_pb2_grpc.EpisodeServiceStub(request.app.state.container.channels["memory"])


async def _check_changeable(request: Request, caller: Caller, memory_id: str) -> None:
    """A caller pinned to a user changes only that user's memories (``user_pin``)."""
    message = memory_service_pb2.GetMemoryRequest(id=memory_id)
    await check_owned(request, caller, _memories(request).GetMemory, message, "memory", memory_id)


@router.post(
    "/v1/memories",
    summary="Remember a batch of memories (MemoryService.Remember)",
    openapi_extra=json_body(memory_service_pb2.RememberRequest, REMEMBER_EXAMPLE, memory_service_pb2.RememberResponse),
)
async def remember(request: Request, caller: Caller = Depends(authorized("memories:write"))) -> Response:
    message = pin_request(caller, await body_message(request, memory_service_pb2.RememberRequest))
    return ProtoJSONResponse(await _memories(request).Remember(message, **rpc_options(request, caller)))


@router.post(
    "/v1/memories:search",
    summary="Recall memories by meaning (MemoryService.Recall)",
    openapi_extra=json_body(memory_service_pb2.RecallRequest, RECALL_EXAMPLE, memory_service_pb2.RecallResponse),
)
async def recall(request: Request, caller: Caller = Depends(authorized("memories:read"))) -> Response:
    message = pin_request(caller, await body_message(request, memory_service_pb2.RecallRequest))
    return ProtoJSONResponse(await _memories(request).Recall(message, **rpc_options(request, caller)))


@router.get(
    "/v1/memories",
    summary="List memories of a scope, paginated (MemoryService.ListMemories)",
    openapi_extra=query_parameters(
        memory_service_pb2.ListMemoriesRequest,
        memory_service_pb2.ListMemoriesResponse,
        {"scope.userId": "u-1", "memoryTypes": ["MEMORY_TYPE_FACT"], "pageSize": 20, "orderBy": "MEMORY_ORDER_NEWEST"},
    ),
)
async def list_memories(request: Request, caller: Caller = Depends(authorized("memories:read"))) -> Response:
    message = pin_request(caller, query_message(request, memory_service_pb2.ListMemoriesRequest))
    return ProtoJSONResponse(await _memories(request).ListMemories(message, **rpc_options(request, caller)))


@router.get(
    "/v1/memories/{memory_id}",
    summary="One memory (MemoryService.GetMemory)",
    openapi_extra=json_response(memory_service_pb2.GetMemoryResponse),
)
async def get_memory(
    memory_id: str, request: Request, caller: Caller = Depends(authorized("memories:read"))
) -> Response:
    message = memory_service_pb2.GetMemoryRequest(id=memory_id)
    found = await _memories(request).GetMemory(message, **rpc_options(request, caller))
    check_readable(caller, found.memory.scope.user_id, "memory", memory_id)
    return ProtoJSONResponse(found)


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
    await _check_changeable(request, caller, memory_id)
    return ProtoJSONResponse(await _memories(request).UpdateMemory(message, **rpc_options(request, caller)))


@router.delete(
    "/v1/memories/{memory_id}",
    summary="Forget (archive) a memory (MemoryService.ForgetMemory)",
    openapi_extra=json_response(memory_service_pb2.ForgetMemoryResponse),
)
async def forget_memory(
    memory_id: str, request: Request, caller: Caller = Depends(authorized("memories:write"))
) -> Response:
    message = memory_service_pb2.ForgetMemoryRequest(id=memory_id)
    await _check_changeable(request, caller, memory_id)
    return ProtoJSONResponse(await _memories(request).ForgetMemory(message, **rpc_options(request, caller)))


@router.get(
    "/v1/episodes",
    summary="Conversation episodes, newest first (EpisodeService.ListEpisodes)",
    tags=["episodes"],
    openapi_extra=query_parameters(
        episode_service_pb2.ListEpisodesRequest,
        episode_service_pb2.ListEpisodesResponse,
        {"scope.userId": "u-1", "pageSize": 10, "minSalience": 0.2},
    ),
)
async def list_episodes(request: Request, caller: Caller = Depends(authorized("memories:read"))) -> Response:
    message = pin_request(caller, query_message(request, episode_service_pb2.ListEpisodesRequest))
    return ProtoJSONResponse(await _episodes(request).ListEpisodes(message, **rpc_options(request, caller)))


@router.get(
    "/v1/open-threads",
    summary="Open threads of recent episodes, newest first (EpisodeService.ListOpenThreads)",
    tags=["episodes"],
    openapi_extra=query_parameters(
        episode_service_pb2.ListOpenThreadsRequest,
        episode_service_pb2.ListOpenThreadsResponse,
        {"scope.userId": "u-1", "pageSize": 10},
    ),
)
async def list_open_threads(request: Request, caller: Caller = Depends(authorized("memories:read"))) -> Response:
    message = pin_request(caller, query_message(request, episode_service_pb2.ListOpenThreadsRequest))
    return ProtoJSONResponse(await _episodes(request).ListOpenThreads(message, **rpc_options(request, caller)))


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
    # A pinned caller resolves only its own user's threads (``user_pin``).
    get_episode = episode_service_pb2.GetEpisodeRequest(id=episode_id)
    await check_owned(request, caller, _episodes(request).GetEpisode, get_episode, "episode", episode_id)
    return ProtoJSONResponse(await _episodes(request).ResolveThread(message, **rpc_options(request, caller)))
