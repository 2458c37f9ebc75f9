"""``LoreStore`` (LangGraph's ``BaseStore`` on Lore) against the in-process gateway on real stores:
the same operations answered as LangGraph's own ``InMemoryStore`` answers them, a put on an
existing key updating one memory, a cold store finding what another wrote, one user's
namespace never reaching another's items (with an org key and with a token pinned to the user),
the sync flavour over a real port, and the runnable example."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import TypedDict

import httpx
import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp
from langgraph.store.memory import InMemoryStore
from lore_client import LoreApiError, LoreClient, SyncLoreClient
from lore_client.integrations.langgraph_store import LoreStore

from tests.integration.gateway.conftest import _create_key
from tests.integration.gateway.test_credentials import _claims, cache_clock, hs256, jwt_gateway  # noqa: F401 - fixtures
from tests.integration.gateway.test_lore_client import served_gateway  # noqa: F401 - a fixture
from tests.polling import eventually

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def lore(gateway, migrated_pg, org_id):
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as client:
        yield client


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def _seen(items) -> list[tuple[tuple[str, ...], str, dict]]:
    """What a read answered, without the timestamps (each store stamps its own writes)."""
    return sorted((item.namespace, item.key, item.value) for item in items)


async def _both(stores: list[BaseStore], operation):
    return [await operation(store) for store in stores]


async def test_the_store_answers_as_langgraphs_in_memory_store(lore):
    user = _user()
    prefs, notes = ("users", user, "prefs"), ("users", user, "agents", "aria", "notes")
    stores: list[BaseStore] = [InMemoryStore(), LoreStore(lore)]

    async def same(operation, compare=lambda answer: answer):
        reference, answered = await _both(stores, operation)
        assert compare(answered) == compare(reference)
        return answered

    await _both(
        stores, lambda st: st.aput(prefs, "diet", {"text": "Eats no meat since 2019.", "kind": "food", "rank": 2})
    )
    await _both(
        stores, lambda st: st.aput(prefs, "drink", {"text": "Green tea every morning.", "kind": "drink", "rank": 5})
    )
    await _both(
        stores, lambda st: st.aput(notes, "tone", {"text": "Prefers short answers.", "kind": "style", "rank": 1})
    )

    def content(item):
        return None if item is None else (item.namespace, item.key, item.value)

    got = await same(lambda st: st.aget(prefs, "diet"), content)
    assert got.value["text"] == "Eats no meat since 2019." and got.created_at is not None
    await same(lambda st: st.aget(prefs, "missing"), content)

    # Overwrite, then read back.
    vegan = {"text": "Vegan since 2023.", "kind": "food", "rank": 3, "tags": ["plants"], "since": {"year": 2023}}
    await _both(stores, lambda st: st.aput(prefs, "diet", vegan))
    assert (await same(lambda st: st.aget(prefs, "diet"), content)).value == vegan

    # Search without a query: the prefix and the filter select the same items.
    await same(lambda st: st.asearch(("users", user)), _seen)
    await same(lambda st: st.asearch(("users", user), filter={"kind": "food"}), _seen)
    await same(lambda st: st.asearch(("users", user), filter={"rank": {"$gte": 3}}), _seen)
    await same(lambda st: st.asearch(("users", user), filter={"kind": {"$ne": "food"}, "rank": {"$lt": 5}}), _seen)
    await same(lambda st: st.asearch(("users", user), filter={"since": {"year": 2023}, "tags": ["plants"]}), _seen)
    await same(lambda st: st.asearch(("users", user, "agents")), _seen)
    await same(lambda st: st.asearch(("users", user), limit=2), len)

    # Namespaces: prefix, suffix, depth.
    await same(lambda st: st.alist_namespaces(prefix=("users", user)))
    await same(lambda st: st.alist_namespaces(prefix=("users", user), max_depth=3))
    await same(lambda st: st.alist_namespaces(prefix=("users", user), suffix=("notes",)))
    await same(lambda st: st.alist_namespaces(prefix=("users", "*", "prefs")))

    # Delete, then put again.
    await _both(stores, lambda st: st.adelete(prefs, "drink"))
    await same(lambda st: st.aget(prefs, "drink"), content)
    await same(lambda st: st.asearch(("users", user)), _seen)
    await _both(stores, lambda st: st.adelete(prefs, "never-written"))
    await _both(stores, lambda st: st.aput(prefs, "drink", {"text": "Black coffee now.", "kind": "drink", "rank": 4}))
    await same(lambda st: st.aget(prefs, "drink"), content)
    await same(lambda st: st.alist_namespaces(prefix=("users", user)))

    # By meaning: the in-memory store has no embedder here, so only what both define is compared —
    # the items found are the prefix's, as many as asked; Lore ranks the one about food first.
    reference, answered = await _both(
        stores, lambda st: st.asearch(("users", user), query="What does the user eat?", limit=2)
    )
    assert len(answered) == len(reference) == 2
    assert {(i.namespace, i.key) for i in answered} <= {(prefs, "diet"), (prefs, "drink"), (notes, "tone")}
    assert answered[0].key == "diet" and answered[0].score is not None


async def test_a_put_on_an_existing_key_updates_that_one_memory(lore):
    user = _user()
    store = LoreStore(lore)
    namespace = ("users", user, "profile")
    await store.aput(namespace, "home", {"city": "Lisbon"})
    [first] = (await lore.list_memories(user)).items
    await store.aput(namespace, "home", {"city": "Porto"})
    await store.aput(namespace, "home", {"city": "Lisbon"})  # the first write's exact value again

    [memory] = (await lore.list_memories(user)).items
    assert memory.id == first.id and memory.memory_type == "MEMORY_TYPE_FACT"
    assert memory.content == '{"city": "Lisbon"}' and memory.status == "MEMORY_STATUS_ACTIVE"
    item = await store.aget(namespace, "home")
    assert item.value == {"city": "Lisbon"}
    # The update shows: the memory and the item were updated after they were created.
    assert memory.updated_at > memory.created_at == first.created_at == first.updated_at
    assert item.updated_at == memory.updated_at and item.created_at == memory.created_at


class CountingTransport(httpx.ASGITransport):
    """The in-process gateway, recording each request's method and path."""

    def __init__(self, app) -> None:
        super().__init__(app=app)
        self.requests: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        return await super().handle_async_request(request)


async def test_a_batch_of_puts_is_one_remember_and_a_key_seen_before_one_update(gateway, migrated_pg, org_id):
    transport = CountingTransport(gateway)
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    namespace = ("users", _user(), "notes")
    async with LoreClient("http://gateway", key, transport=transport) as client:
        store = LoreStore(client)
        await store.abatch([PutOp(namespace, f"n-{i}", {"text": f"Note number {i}."}) for i in range(5)])
        assert transport.requests == ["POST /v1/memories"]

        transport.requests.clear()
        changed, added = {"text": "Note zero, rewritten."}, {"text": "A sixth note."}
        await store.abatch([PutOp(namespace, "n-0", changed), PutOp(namespace, "n-5", added)])
        assert transport.requests == [f"PATCH /v1/memories/{store._ids[(namespace, 'n-0')]}", "POST /v1/memories"]

        # A store that has not seen the keys: the shared Remember is refused (n-1 holds another
        # value), so each put goes on its own and n-1 is updated by the id the refusal names.
        transport.requests.clear()
        fresh = LoreStore(client)
        again = {"text": "Note one, rewritten."}
        await fresh.abatch([PutOp(namespace, "n-1", again), PutOp(namespace, "n-6", added)])
        remember, update = "POST /v1/memories", f"PATCH /v1/memories/{fresh._ids[(namespace, 'n-1')]}"
        assert transport.requests == [remember, remember, update, remember]
        values = {item.key: item.value for item in await LoreStore(client).asearch(namespace, limit=10)}
    notes = {f"n-{i}": {"text": f"Note number {i}."} for i in range(2, 5)}
    assert values == {"n-0": changed, "n-1": again, "n-5": added, "n-6": added} | notes


async def test_lores_own_lifecycle_never_hides_an_item(lore):
    """Maintenance may fold a near-duplicate (consolidated) and reflection may replace a fact
    (superseded): the app's item still holds its value; a put makes it active again."""
    user = _user()
    store = LoreStore(lore)
    namespace = ("users", user, "prefs")
    tea, coffee = {"text": "Drinks green tea."}, {"text": "Drinks black coffee."}
    await store.aput(namespace, "tea", tea)
    await store.aput(namespace, "coffee", coffee)
    ids = {m.content: m.id for m in (await lore.list_memories(user)).items}
    tea_id, coffee_id = ids['{"text": "Drinks green tea."}'], ids['{"text": "Drinks black coffee."}']
    await lore.update_memory(tea_id, status="superseded")
    await lore.update_memory(coffee_id, status="consolidated")

    fresh = LoreStore(lore)
    assert (await fresh.aget(namespace, "tea")).value == tea
    assert {i.key for i in await fresh.asearch(namespace, query="What does the user drink?")} == {"tea", "coffee"}
    await fresh.aput(namespace, "coffee", coffee)
    assert (await lore.get_memory(coffee_id)).status == "MEMORY_STATUS_ACTIVE"


async def test_a_fresh_store_finds_what_another_wrote_and_lore_reads_the_item_as_a_memory(lore):
    user = _user()
    namespace = ("users", user, "memories")
    await LoreStore(lore, fields=["text"]).aput(
        namespace, "m-1", {"text": "Her sister lives in Oslo.", "source": "chat"}
    )

    fresh = LoreStore(lore)
    item = await fresh.aget(namespace, "m-1")
    assert item.value == {"text": "Her sister lives in Oslo.", "source": "chat"}
    hits = await lore.search("Where does her sister live?", user, k=3)  # Lore's own Recall sees the item
    assert hits[0].memory.content == "Her sister lives in Oslo."
    await fresh.adelete(namespace, "m-1")
    assert await LoreStore(lore).aget(namespace, "m-1") is None
    assert (await lore.list_memories(user, statuses="archived")).items[0].id == hits[0].memory.id


async def test_an_erased_users_items_are_gone_and_never_written_again(lore):
    user = _user()
    store = LoreStore(lore)
    namespace = ("users", user, "memories")
    await store.aput(namespace, "m-1", {"text": "Allergic to penicillin."})
    await lore.forget_subject(user)

    async def erased():
        return await store.aget(namespace, "m-1") is None

    await eventually(erased)
    with pytest.raises(LoreApiError) as refused:
        await store.aput(namespace, "m-1", {"text": "Allergic to penicillin."})
    assert refused.value.reason == "MEMORY_ERASED"


async def test_one_users_namespace_never_reads_another_users_items(lore):
    ana, bo = _user(), _user()
    store = LoreStore(lore)
    await store.aput(("users", ana, "memories"), "secret", {"text": "Ana's door code is 4711."})

    assert await store.aget(("users", bo, "memories"), "secret") is None
    assert await store.asearch(("users", bo), query="door code") == []
    assert await store.asearch(("users", bo)) == []
    assert await store.alist_namespaces(prefix=("users", bo)) == []
    assert [i.key for i in await store.asearch(("users", ana), query="door code")] == ["secret"]


async def test_a_token_pinned_to_one_user_cannot_reach_another_users_namespace(jwt_gateway, org_id):  # noqa: F811
    ana, bo = _user(), _user()
    scopes = "memories:read memories:write"

    def client_of(user: str) -> LoreClient:
        token = hs256(_claims(org_id, user_id=user, scope=scopes))
        return LoreClient("http://gateway", token, transport=httpx.ASGITransport(app=jwt_gateway))

    async with client_of(ana) as as_ana, client_of(bo) as as_bo:
        await LoreStore(as_ana).aput(("users", ana, "memories"), "secret", {"text": "Ana's door code is 4711."})
        bos = LoreStore(as_bo)
        for attempt in (
            bos.aget(("users", ana, "memories"), "secret"),
            bos.aput(("users", ana, "memories"), "secret", {"text": "overwritten"}),
            bos.asearch(("users", ana), query="door code"),
        ):
            with pytest.raises(LoreApiError) as refused:
                await attempt
            assert refused.value.status == 403 and refused.value.reason == "USER_PINNED"
        # Without a prefix naming a user, the gateway fills in Bo's own: nothing of Ana's.
        assert await bos.alist_namespaces() == []
        assert await bos.asearch((), query="door code") == []


async def test_a_namespace_naming_no_scope_is_refused_before_any_call(lore):
    store = LoreStore(lore)
    with pytest.raises(InvalidNamespaceError, match=r"names no Lore scope: start it with \('users', <user id>\)"):
        await store.aput(("memories", "u-1"), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError, match="names no Lore scope"):
        await store.aget(("memories",), "k")
    with pytest.raises(ValueError, match="value: must be JSON-serialisable"):
        await store.aput(("users", "u-1"), "k", {"when": object()})
    user = _user()
    with pytest.raises(InvalidNamespaceError):  # one bad put refuses the batch before anything is sent
        await store.abatch([PutOp(("users", user), "fine", {"text": "x"}), PutOp(("memories",), "k", {"text": "y"})])
    assert await store.aget(("users", user), "fine") is None
    with pytest.raises(TypeError, match="needs a SyncLoreClient"):
        store.put(("users", "u-1"), "k", {"text": "x"})


class Recall(TypedDict, total=False):
    question: str
    found: list[str]


def _recalling_graph() -> StateGraph:
    """One node that searches the store of the run's user (from the run's config, as an app does)."""

    def recall(state: Recall, config: RunnableConfig, *, store: BaseStore) -> Recall:
        user = config["configurable"]["user_id"]
        return {"found": [item.key for item in store.search(("users", user), query=state["question"], limit=1)]}

    builder = StateGraph(Recall)
    builder.add_node("recall", recall)
    builder.add_edge(START, "recall")
    builder.add_edge("recall", END)
    return builder


async def test_the_sync_store_runs_langgraphs_blocking_calls(served_gateway, migrated_pg, org_id):  # noqa: F811
    url, _ = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    user = _user()
    namespace = ("users", user, "memories")

    def blocking() -> tuple:
        with SyncLoreClient(url, key) as client:
            store = LoreStore(client)
            store.put(namespace, "m-1", {"text": "Runs every Sunday by the river."})
            store.put(namespace, "m-2", {"text": "Plays the cello."})
            store.put(namespace, "m-2", {"text": "Plays the cello in a quartet."})
            got = store.get(namespace, "m-2")
            graph = _recalling_graph().compile(store=store)  # graph.invoke calls the store's batch
            state = graph.invoke({"question": "Which instrument does she play?"}, {"configurable": {"user_id": user}})
            store.delete(namespace, "m-1")
            return got, state["found"], store.search(("users", user)), store.list_namespaces(prefix=("users", user))

    # The gateway serves on this event loop: the blocking client runs in a thread.
    got, found, left, namespaces = await asyncio.to_thread(blocking)
    assert got.value == {"text": "Plays the cello in a quartet."}
    assert found == ["m-2"]
    assert [item.key for item in left] == ["m-2"] and namespaces == [namespace]


async def test_the_example_runs_against_a_stack(served_gateway, migrated_pg, org_id):  # noqa: F811
    url, _ = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "examples" / "langgraph_store.py"),
        env={**os.environ, "LORE_API_KEY": key, "LORE_URL": url},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[0] == "get: {'text': 'Ada is vegetarian and allergic to peanuts.'}"
    assert "search: diet" in lines[1]
    assert lines[-1] == "namespaces: [('users', 'u-ada', 'memories')]"
