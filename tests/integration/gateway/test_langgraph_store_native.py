"""``LoreStore`` beside LangGraph's ``InMemoryStore`` on what a LangGraph app configures: the
``index`` (fields, per-put paths, ``index=False``), every filter operator, ``list_namespaces``'
prefix, suffix, depth, limit and offset, update times, TTLs (which ``InMemoryStore`` refuses: the
reference is the same store without the expired item), and thousands of concurrent operations
costing a few calls. The same operations on both stores, the same answers, on the in-process
gateway over real stores."""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from gateway_svc.server import create_app
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore
from lore_client import LoreClient, SyncLoreClient
from lore_client.integrations.langgraph_store import LoreStore

from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.integration.gateway.test_langgraph_store import CountingTransport
from tests.integration.gateway.test_lore_client import served_gateway  # noqa: F401 - a fixture


@pytest.fixture
async def lore(gateway, migrated_pg, org_id):
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as client:
        yield client


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def _words(texts: list[str]) -> list[list[float]]:
    """A bag-of-words embedding for InMemoryStore: texts sharing words are near."""
    vectors = []
    for text in texts:
        vector = [0.0] * 1024
        for word in text.lower().replace(".", " ").replace("?", " ").split():
            vector[int.from_bytes(hashlib.sha256(word.encode()).digest()[:2]) % 1024] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        vectors.append([v / norm for v in vector])
    return vectors


WORDS_INDEX = {"dims": 1024, "embed": _words, "fields": ["text"]}


def _seen(items: list[Item]) -> list[tuple[tuple[str, ...], str, dict]]:
    return sorted((item.namespace, item.key, item.value) for item in items)


async def _both(stores: list[BaseStore], operation):
    return [await operation(store) for store in stores]


async def test_the_index_chooses_what_is_found_by_meaning_as_in_memory(lore):
    user = _user()
    namespace = ("users", user, "notes")
    with pytest.warns(UserWarning, match="embed and dims are ignored"):
        lore_store = LoreStore(lore, index=WORDS_INDEX)
    stores: list[BaseStore] = [InMemoryStore(index=WORDS_INDEX), lore_store]
    garden = {"text": "Ana grows tomatoes in her garden.", "note": "Cello lessons on Fridays."}
    await _both(stores, lambda st: st.aput(namespace, "garden", garden))
    await _both(stores, lambda st: st.aput(namespace, "cello", {"text": "Bo plays the cello in an orchestra."}))
    await _both(stores, lambda st: st.aput(namespace, "bees", {"text": "Cy keeps bees on the roof."}, index=False))
    swim = {"text": "Nothing to see here.", "note": "Dee swims in the sea every morning."}
    await _both(stores, lambda st: st.aput(namespace, "swim", swim, index=["note"]))

    # What is embedded: the store's fields, or the put's own paths.
    contents = {m.metadata["langgraph.key"]: m.content for m in (await lore.list_memories(user)).items}
    assert contents["garden"] == "Ana grows tomatoes in her garden." and contents["swim"] == swim["note"]

    reference, answered = await _both(stores, lambda st: st.asearch(namespace, query="Who swims in the sea?"))
    assert answered[0].key == reference[0].key == "swim"
    # The item put with index=False is found by meaning in neither: it only fills, unscored, what
    # the scored items leave of the limit.
    for limit in (3, 4, 10):
        reference, answered = await _both(
            stores, lambda st, limit=limit: st.asearch(namespace, query="cello", limit=limit)
        )
        assert [(i.key, i.score is None) for i in answered if i.score is None] == [
            (i.key, True) for i in reference if i.score is None
        ]
        assert sorted(i.key for i in answered) == sorted(i.key for i in reference)
    # Without a query every item is there, index or not.
    reference, answered = await _both(stores, lambda st: st.asearch(namespace))
    assert _seen(answered) == _seen(reference)

    # A later put with the index indexes the item again; one without text at its paths does not.
    await _both(stores, lambda st: st.aput(namespace, "bees", {"text": "Cy keeps bees on the roof."}))
    reference, answered = await _both(stores, lambda st: st.asearch(namespace, query="bees", limit=4))
    assert answered[0].key == reference[0].key == "bees" and all(i.score is not None for i in answered + reference)
    # (InMemoryStore keeps an item's old vectors when a put has no text at its paths: Lore does not.)
    await lore_store.aput(namespace, "cello", {"note": "No text field now."})
    answered = await lore_store.asearch(namespace, query="bees", limit=4)
    assert answered[0].key == "bees" and answered[-1].key == "cello" and answered[-1].score is None


@pytest.mark.parametrize("query", [None, "What does the user like?"])
async def test_every_filter_operator_selects_as_in_memory(lore, query):
    user = _user()
    namespace = ("users", user, "prefs")
    stores: list[BaseStore] = [InMemoryStore(), LoreStore(lore)]
    values = {
        # InMemoryStore raises on comparing a field an item lacks: every item has the numbers.
        "tea": {"text": "Likes green tea.", "kind": "drink", "rank": 1, "score": 0.5, "tags": ["hot"]},
        "soup": {"text": "Likes tomato soup.", "kind": "food", "rank": 3, "score": 2.5, "meta": {"hot": True}},
        "cake": {"text": "Likes lemon cake.", "kind": "food", "rank": 5, "score": -1},
        "walk": {"text": "Likes long walks.", "kind": "activity", "rank": 3, "score": 0.5},
    }
    for key, value in values.items():
        await _both(stores, lambda st, key=key, value=value: st.aput(namespace, key, value))
    filters = [
        {"kind": "food"},
        {"kind": {"$eq": "food"}},
        {"kind": {"$ne": "food"}},
        {"rank": {"$eq": 3}},
        {"rank": {"$ne": 3}},
        {"rank": {"$gt": 3}},
        {"rank": {"$gte": 3}},
        {"rank": {"$lt": 3}},
        {"rank": {"$lte": 3}},
        {"rank": {"$gt": 1, "$lt": 5}},
        {"score": {"$gte": 0.5}, "kind": "drink"},
        {"meta": {"hot": True}},
        {"tags": ["hot"]},
    ]
    for conditions in filters:
        reference, answered = await _both(
            stores, lambda st, conditions=conditions: st.asearch(namespace, query=query, filter=conditions)
        )
        assert _seen(answered) == _seen(reference), conditions
    with pytest.raises(ValueError, match="Unsupported operator"):
        await stores[0].asearch(namespace, filter={"rank": {"$in": [1]}})
    with pytest.raises(ValueError, match="unsupported operator"):
        await stores[1].asearch(namespace, filter={"rank": {"$in": [1]}})


async def test_list_namespaces_pages_and_cuts_as_in_memory(lore):
    user = _user()
    stores: list[BaseStore] = [InMemoryStore(), LoreStore(lore)]
    namespaces = [
        ("users", user, "prefs"),
        ("users", user, "notes", "work"),
        ("users", user, "notes", "home"),
        ("users", user, "agents", "aria", "notes"),
        ("users", user, "agents", "bo", "notes", "work"),
        *[("users", user, "pages", f"p-{i:02d}") for i in range(12)],
    ]
    ops = [PutOp(namespace, "k", {"text": f"Item of {'.'.join(namespace)}."}) for namespace in namespaces]
    await _both(stores, lambda st: st.abatch(ops))
    prefix = ("users", user)
    cases = [
        {},
        {"max_depth": 3},
        {"max_depth": 4},
        {"suffix": ("notes",)},
        {"suffix": ("*", "work")},
        {"limit": 5},
        {"limit": 5, "offset": 5},
        {"limit": 5, "offset": 15},
        {"max_depth": 3, "limit": 2, "offset": 1},
        {"suffix": ("notes",), "max_depth": 4},
    ]
    for case in cases:
        reference, answered = await _both(stores, lambda st, case=case: st.alist_namespaces(prefix=prefix, **case))
        assert answered == reference, case
    reference, answered = await _both(stores, lambda st: st.alist_namespaces(prefix=("users", user, "notes")))
    assert answered == reference == [("users", user, "notes", "home"), ("users", user, "notes", "work")]


async def test_an_update_moves_the_item_to_the_front_of_a_listing(lore):
    user = _user()
    namespace = ("users", user, "notes")
    stores: list[BaseStore] = [InMemoryStore(), LoreStore(lore)]
    for key in ("a", "b", "c"):
        await _both(stores, lambda st, key=key: st.aput(namespace, key, {"text": f"Note {key}."}))
    before = await stores[1].aget(namespace, "a")
    await _both(stores, lambda st: st.aput(namespace, "a", {"text": "Note a, rewritten."}))
    reference, answered = await _both(stores, lambda st: st.aget(namespace, "a"))
    assert answered.value == reference.value and answered.updated_at > before.updated_at
    assert answered.created_at == before.created_at  # one memory, updated (InMemoryStore stamps both anew)
    listing = await stores[1].asearch(namespace)
    assert [i.key for i in listing] == ["a", "c", "b"]  # newest update first
    assert _seen(listing) == _seen(await stores[0].asearch(namespace))


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_an_expired_item_is_never_read_and_a_read_keeps_it_alive(lore):
    """InMemoryStore has no TTL (it refuses one): the reference is an InMemoryStore from which the
    expired items are deleted when they expire."""
    user = _user()
    notes, scratch = ("users", user, "notes"), ("users", user, "scratch")
    reference = InMemoryStore()
    with pytest.raises(NotImplementedError):
        await reference.aput(notes, "k", {"text": "x"}, ttl=1)
    clock = Clock()
    store = LoreStore(lore, ttl={"default_ttl": 1.0, "refresh_on_read": True})
    store._clock = clock
    stores: list[BaseStore] = [reference, store]

    async def put(namespace, key, value, **ttl):
        await reference.aput(namespace, key, value)
        await store.aput(namespace, key, value, **ttl)

    await put(notes, "default", {"text": "Expires a minute after its last read."})
    await put(notes, "forever", {"text": "Never expires."}, ttl=None)
    await put(scratch, "short", {"text": "Expires after thirty seconds."}, ttl=0.5)
    put_at = (await store.aget(notes, "default", refresh_ttl=False)).updated_at

    async def same(operation, compare=lambda answer: answer):
        expected, answered = await _both(stores, operation)
        assert compare(answered) == compare(expected)

    clock.now += 40  # "short" expired; "default" read (and so kept alive for a minute more)
    await reference.adelete(scratch, "short")
    await same(lambda st: st.aget(scratch, "short"))
    await same(lambda st: st.asearch(("users", user)), _seen)
    await same(lambda st: st.asearch(("users", user), query="Expires after thirty seconds", limit=5), _seen)
    # (InMemoryStore keeps listing a namespace whose last item was deleted; Lore does not.)
    assert await store.alist_namespaces(prefix=("users", user)) == [notes]
    refreshed = await store.aget(notes, "default")
    assert refreshed.updated_at == put_at  # a read moves the expiry, never the update time
    [archived] = (await lore.list_memories(user, statuses="archived")).items
    assert archived.metadata["langgraph.key"] == "short"  # Lore's own reads no longer see it

    clock.now += 50  # 90 s after the put, 50 s after the read: still there; this read keeps nothing alive
    assert (await store.aget(notes, "default", refresh_ttl=False)).updated_at == put_at
    clock.now += 11  # 61 s after the read
    await reference.adelete(notes, "default")
    await same(lambda st: st.aget(notes, "default"))
    await same(lambda st: st.asearch(("users", user)), _seen)
    assert [i.key for i in await store.asearch(notes)] == ["forever"]

    # A search keeps what it answers alive too; a put brings an expired key back.
    await put(notes, "again", {"text": "Searched now and then."})
    clock.now += 50
    assert [i.key for i in await store.asearch(notes, query="Searched now and then", limit=1)] == ["again"]
    clock.now += 50
    assert (await store.aget(notes, "again")) is not None
    await put(notes, "default", {"text": "Back again."})
    await same(lambda st: st.aget(notes, "default"), lambda item: item.value)


async def test_thousands_of_concurrent_operations_cost_a_few_calls(gateway, migrated_pg, org_id):
    """LangGraph's own large-batch mix (put, get, list, search, put again, delete; 6,000 operations
    at once): run as one batch, as InMemoryStore answers the same operations in one batch, in a
    handful of requests."""
    transport = CountingTransport(gateway)
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    user = _user()
    ops = []
    for m in range(10):
        namespace = ("users", user, "test", str(m % 2))
        for i in range(100):
            ops += [
                PutOp(namespace, f"key{i}", {"foo": f"bar{i}"}),
                GetOp(namespace, f"key{i}"),
                ListNamespacesOp((MatchCondition("prefix", ("users", user)),), max_depth=m + 1),
                SearchOp(("users", user)),
                PutOp(namespace, f"key{i}", {"foo": f"bar{i}"}),
                PutOp(namespace, f"key{i}", None),
            ]
    seed = PutOp(("users", user, "seed"), "s", {"text": "Already there."})
    reference = InMemoryStore()
    await reference.abatch([seed])
    expected = await reference.abatch(ops)
    # InMemoryStore lists a namespace once a get has named it: its lists are taken without the gets.
    listing = InMemoryStore()
    await listing.abatch([seed])
    lists = iter(await listing.abatch([op for op in ops if isinstance(op, ListNamespacesOp)]))
    expected = [
        next(lists) if isinstance(op, ListNamespacesOp) else answer for op, answer in zip(ops, expected, strict=True)
    ]
    async with LoreClient("http://gateway", key, transport=transport) as client:
        store = LoreStore(client)
        await store.abatch([seed])
        transport.requests.clear()
        answered = await asyncio.gather(*(store.abatch([op]) for op in ops))
        assert len(transport.requests) <= 5, transport.requests
        assert [_comparable(a) for [a] in answered] == [_comparable(e) for e in expected]
        assert await store.asearch(("users", user, "test")) == await reference.asearch(("users", user, "test")) == []


def _comparable(answer):
    if isinstance(answer, list):
        return [(i.namespace, i.key, i.value) if isinstance(i, Item) else i for i in answer]
    return (answer.namespace, answer.key, answer.value) if isinstance(answer, Item) else answer


class CountingSyncTransport(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.requests = 0
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            self.requests += 1
        return super().handle_request(request)


async def test_threads_batches_go_out_together(served_gateway, migrated_pg, org_id):  # noqa: F811
    """LangGraph's threaded mix (10 threads): a thread's batch waits only while another is being
    sent, then goes out with every batch queued meanwhile — fewer requests than operations, the
    answers each thread would get on its own."""
    url, _ = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    user = _user()
    namespace = ("users", user, "notes")
    transport = CountingSyncTransport()

    def threaded() -> tuple[list, list]:
        with SyncLoreClient(url, key, transport=transport) as client:
            store = LoreStore(client)
            with ThreadPoolExecutor(max_workers=10) as pool:
                puts = [pool.submit(store.put, namespace, f"k{i}", {"text": f"Note {i}."}) for i in range(100)]
                [future.result() for future in puts]
                gets = [pool.submit(store.get, namespace, f"k{i}") for i in range(100)]
                bad = pool.submit(store.put, ("memories",), "k", {"text": "x"})
                got = [future.result() for future in gets]
                with pytest.raises(InvalidNamespaceError):
                    bad.result()
            return got, store.search(namespace, limit=200)

    got, listed = await asyncio.to_thread(threaded)
    assert [item.value for item in got] == [{"text": f"Note {i}."} for i in range(100)]
    assert len(listed) == 100 and transport.requests < 150


async def test_threads_operations_started_together_go_out_as_batches(served_gateway, migrated_pg, org_id):  # noqa: F811
    """LangGraph's large-batch mix (put, get, list, search, put again, delete) from 10 threads, as
    its threaded store test runs it, then puts that stay: each thread's calls are answered as
    InMemoryStore answers the same calls (the same threads, the same order), and the store sends a
    batch per round of the threads, not a request per call."""
    url, _ = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    user = _user()
    transport = CountingSyncTransport()

    def mix(store: BaseStore) -> list:
        calls = []
        for m in range(4):
            namespace = ("users", user, "test", str(m % 2))
            for i in range(25):
                calls += [
                    lambda ns=namespace, i=i: store.put(ns, f"key{i}", {"foo": f"bar{i}"}),
                    lambda ns=namespace, i=i: store.get(ns, f"key{i}"),
                    lambda m=m: store.list_namespaces(prefix=("users", user), max_depth=m + 1),
                    lambda: store.search(("users", user)),
                    lambda ns=namespace, i=i: store.put(ns, f"key{i}", {"foo": f"bar{i}"}),
                    lambda ns=namespace, i=i: store.delete(ns, f"key{i}"),
                ]
        calls += [lambda i=i: store.put(("users", user, "kept"), f"k{i}", {"text": f"Kept {i}."}) for i in range(60)]
        return calls

    def threaded(store: BaseStore) -> list:
        with ThreadPoolExecutor(max_workers=10) as pool:
            futures = [pool.submit(call) for call in mix(store)]
            return [future.result() for future in futures]

    def both() -> tuple[list, list, list, list]:
        reference = InMemoryStore()
        with SyncLoreClient(url, key, transport=transport) as client:
            store = LoreStore(client)
            answered = threaded(store)
            kept = store.search(("users", user, "kept"), limit=100)
        return answered, threaded(reference), kept, reference.search(("users", user, "kept"), limit=100)

    answered, expected, kept, reference_kept = await asyncio.to_thread(both)
    calls = len(answered)
    # With threads the order between one key's calls is the pool's, on both stores: a get answers
    # the item's one value or None, on both; every other call answers alike (puts and deletes None,
    # lists and searches lists); what stays is the same.
    for lore_answer, memory_answer in zip(answered, expected, strict=True):
        if isinstance(lore_answer, Item) or isinstance(memory_answer, Item):
            values = [a.value for a in (lore_answer, memory_answer) if a is not None]
            assert all(value == values[0] and set(value) == {"foo"} for value in values)
        else:
            assert type(lore_answer) is type(memory_answer)
    assert _seen(kept) == _seen(reference_kept) and len(kept) == 60
    assert transport.requests <= calls / 3, (transport.requests, calls)  # unbatched: about one per 1.6 calls


async def test_a_rate_limited_update_or_archive_is_waited_out(services, migrated_pg, redis_url, org_id):
    """The client repeats only GETs and keyed POSTs after a 429; the store's own PATCHes and
    DELETEs set what they name, so the store waits out ``Retry-After`` and repeats them."""
    app = create_app(gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMITS="memories:write=2:3"))
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    namespace = ("users", _user(), "notes")
    async with app.router.lifespan_context(app):
        async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=app)) as client:
            store = LoreStore(client)
            await store.abatch([PutOp(namespace, f"k{i}", {"text": f"Note {i}."}) for i in range(3)])  # 1 write
            await store.abatch([PutOp(namespace, f"k{i}", {"text": f"Note {i}, again."}) for i in range(3)])
            await store.abatch([PutOp(namespace, f"k{i}", None) for i in range(3)])  # well past the burst
            assert await store.asearch(namespace) == []
