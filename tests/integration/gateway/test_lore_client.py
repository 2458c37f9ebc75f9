"""``lore_client.LoreClient`` against the in-process gateway on real stores: a conversation,
memories, an observation, one user's memories and beliefs kept from another's (``scope``,
``scope_match``, ``user_id``), errors mapped to ``LoreApiError``, Idempotency-Key replay, and the
iterators across pages, the per-call options and the connection pool — the client as users and
the benchmarks call it."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid

import httpx
import pytest
import uvicorn
from gateway_svc.server import create_app
from lore_client import LoreApiError, LoreClient, NewEvidence, NewMemory, NewTurn

from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually


@pytest.fixture
async def lore(gateway, migrated_pg, org_id):
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as client:
        yield client


async def test_a_conversation_through_the_client_ends_in_an_episode_and_a_prime(lore):
    session = await lore.start_session({"userId": "u-client", "agentId": "aria"})
    lines = ["I'm vegetarian, by the way.", "Do you know whether chickpeas freeze well after cooking?"]
    results = [await lore.process_turn(session.id, line, turn_idempotency_key=f"m-{n}") for n, line in enumerate(lines)]

    assert [result.turn.sequence for result in results] == [1, 2]
    assert all(result.turn.role == "TURN_ROLE_USER" and result.reply == "" for result in results)
    assert results[0].context.manifest is not None and results[0].reply_turn is None
    turns = await lore.list_turns(session.id)
    assert [turn.content for turn in turns] == lines
    assert (await lore.get_session(session.id)).turn_count == 2

    async def reflected():
        return (await lore.get_session(session.id)).reflected_turns == len(lines)

    await eventually(reflected)
    ended = await lore.end_session(session.id)
    assert ended.status == "SESSION_STATUS_ENDED" and ended.ended_at is not None

    async def episodes():
        return (await lore.list_episodes("u-client")).items

    [episode] = await eventually(episodes)
    assert episode.message_count == 2 and episode.conversation_id == session.id
    threads = await lore.list_open_threads("u-client")
    assert any("chickpeas" in (t.thread.topic + t.thread.context).lower() for t in threads)
    primed = await lore.prime({"userId": "u-client", "agentId": "aria"})
    assert "vegetarian" in primed.formatted_context.lower(), primed.formatted_context
    [listed] = [s for s in (await lore.list_sessions("u-client")).items if s.id == session.id]
    assert listed.status == "SESSION_STATUS_ENDED"


async def test_memories_crud_and_search_with_short_enum_forms(lore):
    [stored] = await lore.remember(
        NewMemory(
            content="Noor volunteered at the animal shelter for the first time yesterday.",
            memory_type="message",
            valid_at="2023-05-08T13:56:00Z",
            metadata={"turn_ref": "D1:3"},
            idempotency_key="u-noor/D1:3",
        ),
        scope="u-noor",
    )
    assert stored.memory_type == "MEMORY_TYPE_MESSAGE" and stored.scope.user_id == "u-noor"
    assert stored.valid_at is not None and stored.valid_at.year == 2023

    hits = await lore.search("When did Noor first volunteer at the animal shelter?", "u-noor", k=5)
    assert hits[0].memory.id == stored.id and hits[0].memory.metadata == {"turn_ref": "D1:3"}
    assert hits[0].score > 0

    updated = await lore.update_memory(stored.id, importance=0.9, metadata={"pinned": "yes"})
    assert updated.importance == pytest.approx(0.9) and updated.metadata == {"pinned": "yes"}
    assert (await lore.get_memory(stored.id)).content == stored.content
    assert [m.id for m in (await lore.list_memories("u-noor", memory_types="message")).items] == [stored.id]

    await lore.forget_memory(stored.id)
    assert (await lore.get_memory(stored.id)).status == "MEMORY_STATUS_ARCHIVED"
    assert stored.id not in [hit.memory.id for hit in await lore.search("animal shelter", "u-noor")]


async def test_messages_written_with_their_session_come_back_with_it_and_the_reply_to_a_hit_too(lore):
    said = ["Ines: I finally adopted a greyhound from the rescue.", "Tomasz: What did you call her?",
            "Ines: Pixel, after the old arcade game."]  # fmt: skip
    written = await lore.remember(
        [NewMemory(content=text, memory_type="message", session_id="s-dog", valid_at=f"2026-03-01T10:00:0{n}Z")
         for n, text in enumerate(said)],
        scope="u-ines",
    )  # fmt: skip
    assert [memory.provenance.session_id for memory in written] == ["s-dog"] * 3
    # Each shares a word with the question; the two replies share none.
    elsewhere = ["Ines: My brother adopted a strict diet.", "Ines: The rescue boat was late again.",
                 "Ines: Greyhound buses leave every hour.", "Ines: The shelter adopted a new logo."]  # fmt: skip
    await lore.remember(
        [NewMemory(content=text, memory_type="message", session_id=f"s-{n}") for n, text in enumerate(elsewhere)],
        scope="u-ines",
    )

    hits = await lore.search("adopted greyhound rescue", "u-ines", k=3)

    assert hits[0].memory.id == written[0].id and hits[0].memory.provenance.session_id == "s-dog"
    assert {hit.memory.id for hit in hits} == {memory.id for memory in written}  # said together, found together


async def test_a_session_id_reaches_neither_another_user_nor_another_org(gateway, migrated_pg):
    """Two orgs hold the same messages of u-ines. In org "shared", another user wrote messages under
    u-ines's session id that match the question better, and so did u-ines of a third org; in org
    "apart", the same intruding messages carry another session id. Lexical IDF spans every org (a
    documented choice that changes order, never what a tenant sees), so both orgs see the same
    statistics: if a session reached across a wall, the two searches would differ."""
    mine = ["Ines: I finally adopted a greyhound from the rescue.", "Tomasz: What did you call her?",
            "Ines: Pixel, after the old arcade game.", "Ines: The rescue boat was late again."]  # fmt: skip
    better = "Adopted greyhound from the rescue: adopted greyhound rescue."

    def messages(texts: list[str], session: str) -> list[NewMemory]:
        return [NewMemory(content=text, memory_type="message", session_id=session, valid_at=f"2026-03-01T10:00:0{n}Z")
                for n, text in enumerate(texts)]  # fmt: skip

    async def client_of(org: str) -> LoreClient:
        key = await _create_key(migrated_pg.owner_dsn, org)
        return LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway))

    orgs = {name: f"org-{name}-{uuid.uuid4().hex[:8]}" for name in ("shared", "apart", "third")}
    async with await client_of(orgs["shared"]) as shared, await client_of(orgs["apart"]) as apart:
        async with await client_of(orgs["third"]) as third:
            for client, intruding_session in ((shared, "s-ines"), (apart, "s-elsewhere")):
                await client.remember(messages(mine, "s-ines"), scope="u-ines")
                await client.remember(messages([better] * 4, intruding_session), scope="u-tomasz")
            theirs = await third.remember(messages([better] * 4, "s-ines"), scope="u-ines")

            async def ranked(client: LoreClient) -> list[tuple[float, str]]:
                hits = await client.search("adopted greyhound rescue", "u-ines", k=10, record_access=False)
                return sorted((-round(hit.score, 6), hit.memory.content) for hit in hits)

            seen_by_shared, seen_by_apart = await ranked(shared), await ranked(apart)
            third_hits = await third.search("adopted greyhound rescue", "u-ines", k=10, record_access=False)

    assert sorted(content for _, content in seen_by_shared) == sorted(mine)  # no intruder appears
    assert seen_by_shared == seen_by_apart  # and none lifts or lowers u-ines's messages
    assert {hit.memory.id for hit in third_hits} == {memory.id for memory in theirs}


async def test_an_observation_is_created_then_supported_and_confirmed(lore):
    evidence = NewEvidence(source_id="turn-17", excerpt="I'd pick Postgres, I need ACID", weight=1.0)
    arguments = {
        "kind": "operator_preference",
        "subject_id": "user-42",
        "slot": "database",
        "summary": "Prefers PostgreSQL over MongoDB for ACID compliance",
    }
    created = await lore.observe("aria", **arguments, evidence=[evidence])
    supported = await lore.observe("aria", **arguments, evidence=[NewEvidence(source_id="turn-18")])

    assert created.outcome == "OBSERVE_OUTCOME_CREATED"
    assert created.observation.canonical_key == "entity:user-42:operator_preference:database"
    assert supported.outcome == "OBSERVE_OUTCOME_SUPPORTED"
    assert supported.observation.id == created.observation.id
    page = await lore.query_observations(
        agent_id="aria", subject_id="user-42", kind="operator_preference", status="active"
    )
    assert [o.id for o in page] == [created.observation.id]
    confirmed = await lore.confirm_observation(created.observation.id, note="Confirmed on the call.")
    assert confirmed.confidence >= supported.observation.confidence
    fetched = await lore.get_observation(created.observation.id)
    assert {e.source_id for e in fetched.evidence} >= {"turn-17", "turn-18"}
    assert [o.id for o in await lore.observation_history(created.observation.id)] == [created.observation.id]
    engagement = await lore.get_engagement()
    assert engagement.week_number >= 1


async def test_errors_become_lore_api_errors_with_the_gateways_code_reason_and_field(lore):
    with pytest.raises(LoreApiError) as missing:
        await lore.get_memory(str(uuid.uuid4()))
    assert missing.value.status == 404 and missing.value.code == "NOT_FOUND"
    assert missing.value.request_id

    with pytest.raises(LoreApiError) as invalid:
        await lore.search("anything", "u-1", k=1000)
    assert invalid.value.status == 400 and invalid.value.code == "INVALID_ARGUMENT"
    assert invalid.value.field == "k", invalid.value.details

    with pytest.raises(LoreApiError) as unknown_enum:
        await lore.remember(NewMemory(content="x", memory_type="no-such-type"), scope="u-1")
    assert unknown_enum.value.status == 400


async def test_a_rate_limited_call_carries_retry_after_and_an_idempotent_one_is_retried(
    services, migrated_pg, redis_url, org_id
):
    app = create_app(gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="2:3"))
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app):
        async with LoreClient("http://gateway", key, transport=transport, max_retries=0) as once:
            for _ in range(3):
                await once.list_sessions()
            with pytest.raises(LoreApiError) as limited:
                await once.list_sessions()
        assert limited.value.status == 429 and limited.value.code == "RESOURCE_EXHAUSTED"
        assert limited.value.reason == "RATE_LIMITED" and limited.value.retry_after == 1
        assert limited.value.metadata["scope"] == "sessions:read"

        async with LoreClient("http://gateway", key, transport=transport) as patient:
            slept: list[float] = []
            waits = patient._sleep  # the client's own wait, told what it waited

            async def sleep(seconds: float) -> None:
                slept.append(seconds)
                await waits(seconds)

            patient._sleep = sleep
            page = await patient.list_sessions()  # 429, waits Retry-After, then admitted
        assert page.items == () and slept and slept[0] == 1


async def test_an_idempotency_key_replays_the_first_answer_and_refuses_another_body(lore):
    key = f"key-{uuid.uuid4().hex}"
    memory = NewMemory(content="Ana keeps bees.", memory_type="fact", scope="u-idem")

    first = await lore.remember(memory, idempotency_key=key)
    again = await lore.remember(memory, idempotency_key=key)
    with pytest.raises(LoreApiError) as reused:
        await lore.remember(NewMemory(content="Ana keeps goats.", scope="u-idem"), idempotency_key=key)

    assert again == first
    assert [m.id for m in (await lore.list_memories("u-idem")).items] == [first[0].id]
    assert reused.value.status == 409 and reused.value.reason == "IDEMPOTENCY_KEY_REUSED"


async def test_the_iterators_follow_next_page_tokens_across_pages(lore):
    memories = [NewMemory(content=f"Fact number {n} about the garden.", scope="u-pages") for n in range(7)]
    stored = await lore.remember(memories)
    sessions = [await lore.start_session("u-pages") for _ in range(5)]

    first_page = await lore.list_memories("u-pages", page_size=3)
    seen = [memory.id async for memory in lore.iter_memories("u-pages", page_size=3)]
    seen_sessions = [session.id async for session in lore.iter_sessions("u-pages", page_size=2)]

    assert len(first_page) == 3 and first_page.next_page_token
    assert sorted(seen) == sorted(memory.id for memory in stored)
    assert sorted(seen_sessions) == sorted(session.id for session in sessions)


async def test_status_needs_no_credential(gateway):
    async with LoreClient("http://gateway", transport=httpx.ASGITransport(app=gateway)) as anonymous:
        status = await anonymous.status()
        assert status.serving and status.services["memory"] == "SERVING"
        with pytest.raises(LoreApiError) as refused:
            await anonymous.list_sessions()
    assert refused.value.status == 401 and refused.value.reason == "MISSING_CREDENTIAL"


async def test_a_view_with_no_retries_raises_the_429_its_client_would_wait_out(
    services, migrated_pg, redis_url, org_id
):
    app = create_app(gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="1:1"))
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with app.router.lifespan_context(app):
        async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=app)) as patient:
            slept: list[float] = []
            waits = patient._sleep  # the client's own wait, told what it waited

            async def sleep(seconds: float) -> None:
                slept.append(seconds)
                await waits(seconds)

            patient._sleep = sleep
            once = patient.with_options(max_retries=0)
            await once.list_sessions()  # the one token of the bucket
            with pytest.raises(LoreApiError) as limited:
                await once.list_sessions()
            assert limited.value.status == 429 and slept == []
            assert once.max_retries == 0 and patient.max_retries == 2

            await patient.list_sessions()  # 429, waits Retry-After, then admitted
            assert slept == [1]


async def test_a_view_shares_the_credential_and_pool_and_closing_it_leaves_the_client_open(lore):
    async with lore.with_options(timeout=5) as view:
        [stored] = await view.remember(NewMemory(content="Views share the pool.", scope="u-view"))
    assert (await lore.get_memory(stored.id)).content == "Views share the pool."
    with pytest.raises(ValueError, match="max_retries"):
        lore.with_options(max_retries=-1)


async def test_a_view_with_a_short_timeout_gives_up_on_a_server_that_does_not_answer():
    # A listening socket nobody accepts from: the kernel completes the handshake, no answer ever comes.
    with socket.create_server(("127.0.0.1", 0)) as silent:
        async with LoreClient(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=30) as lore:
            began = time.monotonic()
            with pytest.raises(LoreApiError) as timed_out:
                await lore.with_options(timeout=0.3).status()
            waited = time.monotonic() - began
    assert timed_out.value.status == 0 and timed_out.value.code == "DEADLINE_EXCEEDED"
    assert 0.3 <= waited < 5 and lore.timeout == 30


class PeerPorts:
    """ASGI middleware: the client port of each HTTP request, i.e. which TCP connection carried it."""

    def __init__(self, app) -> None:
        self.app = app
        self.ports: set[int] = set()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            self.ports.add(scope["client"][1])
        await self.app(scope, receive, send)


@pytest.fixture
async def served_gateway(gateway):
    """The gateway on a real port (uvicorn on this event loop, where its gRPC channels live)."""
    recorder = PeerPorts(gateway)
    listener = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(recorder, log_level="warning", access_log=False, lifespan="off", ws="none")
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    await eventually(lambda: server.started or serving.done(), what="the gateway serving", interval=0.01)
    assert not serving.done(), "the gateway did not start serving"
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", recorder
    server.should_exit = True
    await serving
    listener.close()


async def test_limits_size_the_connection_pool(served_gateway, migrated_pg, org_id):
    url, recorder = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient(url, key, limits=httpx.Limits(max_connections=2)) as pooled:
        pages = await asyncio.gather(*(pooled.list_sessions() for _ in range(12)))
    assert len(pages) == 12 and len(recorder.ports) <= 2

    recorder.ports.clear()
    async with LoreClient(url, key) as unbounded:  # httpx's default pool: up to 100 connections
        await asyncio.gather(*(unbounded.list_sessions() for _ in range(12)))
    assert len(recorder.ports) > 2


async def test_one_users_memories_and_beliefs_never_reach_another_users_reads(lore):
    user_a, user_b = f"u-a-{uuid.uuid4().hex[:8]}", f"u-b-{uuid.uuid4().hex[:8]}"

    # The org's shared memory reaches A's context; B's never does. A browse by A's id is A's alone.
    [org_memory] = await lore.remember(NewMemory(content="The household drinks something hot every morning."))
    [a_memory] = await lore.remember(NewMemory(content="I drink green tea every morning."), scope=user_a)
    [b_memory] = await lore.remember(NewMemory(content="I drink black coffee every morning."), scope=user_b)

    hits = await lore.search("What do I drink in the morning?", {"userId": user_a}, scope_match="context", k=10)
    hit_ids = {hit.memory.id for hit in hits}
    assert {org_memory.id, a_memory.id} <= hit_ids and b_memory.id not in hit_ids
    browsed = await lore.search("What do I drink in the morning?", {"userId": user_a}, k=10)
    assert {hit.memory.id for hit in browsed} == {a_memory.id}  # browse: the ids the scope names
    context_page = await lore.list_memories(user_a, scope_match="context")
    assert {memory.id for memory in context_page} == {org_memory.id, a_memory.id}

    belief = {"kind": "operator_preference", "subject_id": "household", "slot": "morning-drink"}

    # The same subject and slot for both users and the org: three beliefs, not one contested belief.
    mine = await lore.observe("aria", **belief, summary="Drinks green tea every morning.", scope={"userId": user_a})
    theirs = await lore.observe(
        "aria", **belief, summary="Drinks black coffee every morning.", scope={"userId": user_b}
    )
    shared = await lore.observe("aria", **belief, summary="The household drinks something hot every morning.")
    assert [r.outcome for r in (mine, theirs, shared)] == ["OBSERVE_OUTCOME_CREATED"] * 3
    assert len({mine.observation.id, theirs.observation.id, shared.observation.id}) == 3
    assert mine.observation.scope.user_id == user_a and not mine.observation.unattributed
    assert shared.observation.scope.user_id == ""

    found = await lore.search_observations(
        "What does the household drink in the morning?", agent_id="aria", user_id=user_a
    )
    found_ids = {hit.observation.id for hit in found}
    assert mine.observation.id in found_ids and shared.observation.id in found_ids
    assert theirs.observation.id not in found_ids
    assert all(hit.observation.scope.user_id in ("", user_a) for hit in found)

    listed = await lore.query_observations(user_id=user_a)
    assert [o.id for o in listed] == [mine.observation.id]
    assert [o.scope.user_id for o in listed] == [user_a]
    in_context = await lore.query_observations(agent_id="aria", user_id=user_a, scope_match="context")
    assert {o.id for o in in_context} == {mine.observation.id, shared.observation.id}


async def test_an_imported_turn_names_its_speaker_and_its_memory_says_where_it_came_from(lore):
    session = await lore.start_session({"userId": "u-speaker"})
    await lore.import_turns(
        session.id,
        [NewTurn(content="I adopted a greyhound called Pixel.", speaker="Noor", created_at="2026-03-01T18:00:00Z")],
    )

    [turn] = (await lore.list_turns(session.id)).items
    [hit, *_] = await lore.search("Who is Pixel?", "u-speaker", k=3, record_access=False)
    assert (turn.speaker, turn.content) == ("Noor", "I adopted a greyhound called Pixel.")
    assert hit.memory.content == "Noor: I adopted a greyhound called Pixel."
    assert (hit.memory.provenance.session_id, hit.memory.provenance.turn_ids) == (session.id, (turn.id,))
    assert hit.memory.provenance.source == "PROVENANCE_SOURCE_IMPORT"
    assert hit.memory.provenance.speaker == "Noor"  # Recall lifts the messages of a speaker a question names
