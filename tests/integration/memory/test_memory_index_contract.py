"""One contract for every MemoryIndex: the fake of tests/fakes.py, qdrant-edge, qdrant-client.

The ``memory_index`` fixture (conftest.py) runs each test against all three. Vectors are
small hand-made or random unit vectors; no embedding model is involved.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest
from memory_svc.domain.lexical import encode_document, encode_query
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope, ScopeMatch
from memory_svc.usecases.memory_ports import AccessRefresh, AccessTarget, SearchFilter

from tests.integration.memory.conftest import DIMENSION

T0 = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def make_item(org_id: str, content: str = "the user likes green tea", **fields: object) -> MemoryItem:
    values: dict[str, object] = {
        "id": str(uuid.uuid4()),
        "org_id": org_id,
        "content": content,
        "memory_type": MemoryType.FACT,
        "scope": Scope(),
        "importance": 0.5,
        "status": MemoryStatus.ACTIVE,
        "metadata": {},
        "provenance": Provenance(),
        "entities": (),
        "created_at": T0,
        "valid_at": T0,
        "last_accessed_at": T0,
    }
    values.update(fields)
    return MemoryItem(**values)  # type: ignore[arg-type]


async def search_items(index, org_id: str, *args, **kwargs) -> list[tuple[MemoryItem, float]]:
    """``index.search`` with each id replaced by its item (read back through ``get``)."""
    return await _with_items(index, org_id, await index.search(org_id, *args, **kwargs))


async def search_lexical_items(index, org_id: str, *args, **kwargs) -> list[tuple[MemoryItem, float]]:
    return await _with_items(index, org_id, await index.search_lexical(org_id, *args, **kwargs))


async def _with_items(index, org_id: str, hits: list[tuple[str, float]]) -> list[tuple[MemoryItem, float]]:
    assert all(isinstance(key, str) for key, _ in hits)
    items = {item.id: item for item in await index.get(org_id, [key for key, _ in hits])}
    return [(items[key], score) for key, score in hits]


def unit(*components: float) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[: len(components)] = components
    return vector / np.linalg.norm(vector)


def random_units(count: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((count, DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


async def test_vectors_returns_the_stored_unit_vectors_of_known_ids_in_the_org(memory_index) -> None:
    org = new_org()
    items = [make_item(org, "first"), make_item(org, "second")]
    stored = random_units(2, seed=11)
    await memory_index.upsert(items, stored)

    found = await memory_index.vectors(org, [items[1].id, str(uuid.uuid4()), items[0].id, "not-a-uuid"])
    elsewhere = await memory_index.vectors(new_org(), [items[0].id])

    assert set(found) == {items[0].id, items[1].id}
    np.testing.assert_allclose(found[items[0].id], stored[0], atol=1e-5)
    np.testing.assert_allclose(found[items[1].id], stored[1], atol=1e-5)
    assert elsewhere == {}


async def test_get_returns_the_item_exactly_as_upserted(memory_index) -> None:
    org = new_org()
    item = make_item(
        org,
        "Alice moved to Lisbon in May",
        memory_type=MemoryType.DECISION,
        scope=Scope(user_id="u-1", agent_id="a-1", team_id="t-1"),
        importance=0.8125,
        status=MemoryStatus.WARM,
        metadata={"turn_ref": "D1:3", "source": "import", "ünï": "cødé"},
        provenance=Provenance(
            session_id="s-1",
            turn_ids=("t-1", "t-2"),
            source_type="conversation",
            consolidated_into=str(uuid.uuid4()),
            consolidated_from=(str(uuid.uuid4()),),
            session_ids=("s-0", "s-2"),
        ),
        entities=("alice", "lisbon"),
        created_at=T0,
        valid_at=datetime(2025, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2))).astimezone(UTC),
        last_accessed_at=T0 + timedelta(days=3, microseconds=7),
        access_count=4,
        current_salience=0.123456789,
    )
    await memory_index.upsert([item], np.stack([unit(1, 2, 3)]))

    [got] = await memory_index.get(org, [item.id])

    assert got == item
    for stamp in (got.created_at, got.valid_at, got.last_accessed_at):
        assert stamp.utcoffset() == timedelta(0)


async def test_get_skips_unknown_ids_and_keeps_the_order_asked(memory_index) -> None:
    org = new_org()
    items = [make_item(org, f"memory {n}") for n in range(3)]
    await memory_index.upsert(items, random_units(3, seed=1))

    got = await memory_index.get(org, [items[2].id, str(uuid.uuid4()), items[0].id, "not-a-uuid"])

    assert [item.id for item in got] == [items[2].id, items[0].id]
    assert await memory_index.get(org, []) == []


async def test_search_returns_nearest_first_with_cosine_similarity(memory_index) -> None:
    org = new_org()
    directions = [(1, 0), (1, 1), (0, 1), (-1, 0)]
    items = [make_item(org, f"direction {d}") for d in directions]
    await memory_index.upsert(items, np.stack([unit(*d) for d in directions]))

    hits = await search_items(memory_index, org, Scope(), unit(1, 0.2), k=4)

    assert [item.id for item, _ in hits] == [items[0].id, items[1].id, items[2].id, items[3].id]
    query = np.array([1, 0.2]) / math.hypot(1, 0.2)
    for (_, score), direction in zip(hits, directions, strict=True):
        expected = float(np.dot(query, np.array(direction) / np.linalg.norm(direction)))
        assert score == pytest.approx(expected, abs=1e-5)


async def test_search_never_returns_another_orgs_items(memory_index) -> None:
    ours, theirs = new_org(), new_org()
    vector = unit(0.3, 0.4, 0.5)
    mine = make_item(ours, "the launch code is 1234", scope=Scope(user_id="u-1"))
    other = make_item(theirs, "the launch code is 1234", scope=Scope(user_id="u-1"))
    await memory_index.upsert([mine, other], np.stack([vector, vector]))

    hits = await search_items(memory_index, ours, Scope(), vector, k=10)
    scoped = await search_items(memory_index, ours, Scope(user_id="u-1"), vector, k=10)

    assert [item.id for item, _ in hits] == [mine.id]
    assert [item.id for item, _ in scoped] == [mine.id]
    assert await memory_index.get(ours, [other.id]) == []
    assert await memory_index.count(ours) == 1
    assert await memory_index.count(theirs) == 1


async def test_upsert_never_overwrites_another_orgs_item_with_the_same_id(memory_index) -> None:
    ours, theirs = new_org(), new_org()
    mine = make_item(ours, "ours")
    await memory_index.upsert([mine], np.stack([unit(1)]))

    intruder = make_item(theirs, "theirs", id=mine.id)
    await memory_index.upsert([intruder], np.stack([unit(0, 1)]))

    assert await memory_index.get(ours, [mine.id]) == [mine]
    [(hit, score)] = await search_items(memory_index, ours, Scope(), unit(1), k=5)
    assert hit == mine
    assert score == pytest.approx(1.0, abs=1e-5)


async def test_scope_filter_keeps_the_fields_that_are_set(memory_index) -> None:
    org = new_org()
    alice = make_item(org, "alice's", scope=Scope(user_id="alice"))
    alice_bot = make_item(org, "alice with the bot", scope=Scope(user_id="alice", agent_id="bot"))
    bob = make_item(org, "bob's", scope=Scope(user_id="bob"))
    shared = make_item(org, "the org's", scope=Scope())
    items = [alice, alice_bot, bob, shared]
    await memory_index.upsert(items, random_units(4, seed=2))
    query = unit(1, 1, 1, 1)

    async def ids(scope: Scope) -> set[str]:
        return {item.id for item, _ in await search_items(memory_index, org, scope, query, k=10)}

    assert await ids(Scope(user_id="alice")) == {alice.id, alice_bot.id}
    assert await ids(Scope(user_id="alice", agent_id="bot")) == {alice_bot.id}
    assert await ids(Scope(agent_id="bot")) == {alice_bot.id}
    assert await ids(Scope(user_id="carol")) == set()
    assert await ids(Scope()) == {item.id for item in items}


# A population of one org for the scope matches: two users, the org's shared items, two agents,
# two teams, and another org's item of the same user.
SCOPES = {
    "alice": Scope(user_id="alice"),
    "alice+bot": Scope(user_id="alice", agent_id="bot"),
    "alice+other-bot": Scope(user_id="alice", agent_id="other-bot"),
    "alice+team": Scope(user_id="alice", team_id="team-1"),
    "alice+bot+team": Scope(user_id="alice", agent_id="bot", team_id="team-1"),
    "bob": Scope(user_id="bob"),
    "bob+bot": Scope(user_id="bob", agent_id="bot"),
    "bob+team": Scope(user_id="bob", team_id="team-1"),
    "shared": Scope(),
    "shared+bot": Scope(agent_id="bot"),
    "shared+other-bot": Scope(agent_id="other-bot"),
    "team": Scope(team_id="team-1"),
    "other-team": Scope(team_id="team-2"),
    "team+bot": Scope(agent_id="bot", team_id="team-1"),
}
SHARED = {"shared", "shared+bot", "shared+other-bot"}
# What a context read for each scope returns (ARCHITECTURE.md §2), by the names above.
CONTEXT_READS = [
    (Scope(user_id="alice"), {"alice", "alice+bot", "alice+other-bot"} | SHARED),
    (Scope(user_id="alice", agent_id="bot"), {"alice", "alice+bot", "shared", "shared+bot"}),
    (
        Scope(user_id="alice", team_id="team-1"),
        {"alice", "alice+bot", "alice+other-bot", "alice+team", "alice+bot+team", "team", "team+bot"} | SHARED,
    ),
    (
        Scope(user_id="alice", agent_id="bot", team_id="team-1"),
        {"alice", "alice+bot", "alice+team", "alice+bot+team", "shared", "shared+bot", "team", "team+bot"},
    ),
    (Scope(), SHARED),
    (Scope(agent_id="bot"), {"shared", "shared+bot"}),
    (Scope(team_id="team-1"), SHARED | {"team", "team+bot"}),
    (Scope(user_id="carol"), SHARED),
]
BROWSE_READS = [
    (Scope(user_id="alice"), {"alice", "alice+bot", "alice+other-bot", "alice+team", "alice+bot+team"}),
    (Scope(agent_id="bot"), {"alice+bot", "alice+bot+team", "bob+bot", "shared+bot", "team+bot"}),
    (Scope(user_id="alice", team_id="team-1"), {"alice+team", "alice+bot+team"}),
    (Scope(), set(SCOPES)),
]


async def scoped_population(memory_index) -> tuple[str, dict[str, str]]:
    """The items of ``SCOPES`` (each says "kiwifruit") in a new org, plus the same user's item in
    another org; returns the org and the names of the item ids."""
    org = new_org()
    items = {name: make_item(org, f"{name} likes kiwifruit", scope=scope) for name, scope in SCOPES.items()}
    elsewhere = make_item(new_org(), "alice likes kiwifruit elsewhere", scope=Scope(user_id="alice"))
    everything = [*items.values(), elsewhere]
    await upsert_texts(memory_index, everything, random_units(len(everything), seed=21))
    return org, {item.id: name for name, item in items.items()}


async def read_names(memory_index, org: str, names: dict[str, str], how: str, scope: Scope, match: ScopeMatch):
    if how == "search":
        hits = await memory_index.search(org, scope, unit(1, 1, 1), 50, scope_match=match)
    elif how == "search_lexical":
        hits = await memory_index.search_lexical(org, scope, encode_query("kiwifruit"), 50, scope_match=match)
    else:
        from memory_svc.usecases.memory_ports import MemoryOrder

        listed = await memory_index.page(org, scope, (), (), MemoryOrder.NEWEST, 50, scope_match=match)
        hits = [(item.id, 0.0) for item in listed]
    assert len(hits) == len({key for key, _ in hits})
    return {names[key] for key, _ in hits}


@pytest.mark.parametrize("how", ["search", "search_lexical", "scroll"])
async def test_a_context_read_shows_the_users_and_the_orgs_items_never_another_users(memory_index, how) -> None:
    org, names = await scoped_population(memory_index)

    for scope, expected in CONTEXT_READS:
        found = await read_names(memory_index, org, names, how, scope, ScopeMatch.CONTEXT)
        assert found == expected, scope
        if scope.user_id == "alice":
            assert not any(name.startswith("bob") for name in found)
        if not scope.user_id:
            assert not any(SCOPES[name].user_id for name in found)


@pytest.mark.parametrize("how", ["search", "search_lexical", "scroll"])
async def test_a_browse_read_keeps_the_ids_the_scope_sets(memory_index, how) -> None:
    org, names = await scoped_population(memory_index)

    for scope, expected in BROWSE_READS:
        assert await read_names(memory_index, org, names, how, scope, ScopeMatch.BROWSE) == expected, scope


async def test_erasure_and_iteration_keep_the_browse_match(memory_index) -> None:
    org, names = await scoped_population(memory_index)

    iterated = [
        names[item.id] async for batch in memory_index.iterate(org, Scope(user_id="alice"), 4) for item in batch
    ]
    deleted = await memory_index.delete_scope(org, Scope(user_id="alice"))

    alices = {"alice", "alice+bot", "alice+other-bot", "alice+team", "alice+bot+team"}
    assert sorted(iterated) == sorted(alices)
    assert {names[key] for key in deleted} == alices  # the org's shared items are not alice's to erase
    assert await read_names(memory_index, org, names, "scroll", Scope(), ScopeMatch.BROWSE) == set(SCOPES) - alices


async def test_memory_types_filter(memory_index) -> None:
    org = new_org()
    fact = make_item(org, "a fact", memory_type=MemoryType.FACT)
    preference = make_item(org, "a preference", memory_type=MemoryType.PREFERENCE)
    digest = make_item(org, "a digest", memory_type=MemoryType.DAILY_DIGEST)
    await memory_index.upsert([fact, preference, digest], random_units(3, seed=3))
    query = unit(1)

    async def ids(*types: MemoryType) -> set[str]:
        return {item.id for item, _ in await search_items(memory_index, org, Scope(), query, k=10, memory_types=types)}

    assert await ids(MemoryType.PREFERENCE) == {preference.id}
    assert await ids(MemoryType.FACT, MemoryType.DAILY_DIGEST) == {fact.id, digest.id}
    assert await ids() == {fact.id, preference.id, digest.id}
    assert await ids(MemoryType.SKILL) == set()


async def test_upserting_the_same_id_twice_keeps_one_item(memory_index) -> None:
    org = new_org()
    first = make_item(org, "first version", access_count=0)
    await memory_index.upsert([first], np.stack([unit(1)]))
    second = make_item(
        org,
        "second version",
        id=first.id,
        access_count=5,
        last_accessed_at=T0 + timedelta(hours=1),
        metadata={"edited": "yes"},
    )
    await memory_index.upsert([second], np.stack([unit(0, 1)]))

    assert await memory_index.count(org) == 1
    assert await memory_index.get(org, [first.id]) == [second]
    [(hit, score)] = await search_items(memory_index, org, Scope(), unit(0, 1), k=10)
    assert hit == second
    assert score == pytest.approx(1.0, abs=1e-5)


async def test_k_is_respected(memory_index) -> None:
    org = new_org()
    items = [make_item(org, f"memory {n}") for n in range(12)]
    vectors = random_units(12, seed=4)
    await memory_index.upsert(items, vectors)

    hits = await search_items(memory_index, org, Scope(), vectors[0], k=5)

    assert len(hits) == 5
    assert hits[0][0].id == items[0].id
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)
    assert len(await search_items(memory_index, org, Scope(), vectors[0], k=50)) == 12
    assert await memory_index.count(org) == 12


async def test_count_of_an_unknown_org_is_zero(memory_index) -> None:
    assert await memory_index.count(new_org()) == 0
    assert await search_items(memory_index, new_org(), Scope(), unit(1), k=3) == []


# --------------------------------------------------------------------------- lexical (BM25) and filters


def bm25_expected(query: str, document: str, corpus: list[str]) -> float:
    """Okapi BM25 as the port defines it: stored TF saturation × Qdrant's IDF over ``corpus``."""
    query_terms = encode_query(query).as_dict()
    stored = encode_document(document).as_dict()
    vectors = [encode_document(text).as_dict() for text in corpus]
    score = 0.0
    for index in query_terms:
        if index in stored:
            having = sum(1 for vector in vectors if index in vector)
            score += math.log(1 + (len(vectors) - having + 0.5) / (having + 0.5)) * stored[index]
    return score


async def upsert_texts(memory_index, items: list[MemoryItem], vectors: np.ndarray) -> None:
    await memory_index.upsert(items, vectors, [encode_document(item.content) for item in items])


async def test_lexical_search_finds_an_exact_term_even_when_dense_similarity_is_low(memory_index) -> None:
    org = new_org()
    texts = [
        "Noor said the launch code is tangerine",
        "Tomasz painted a sunrise over the lake",
        "Noor went to the animal shelter on Sunday",
        "the weather was rainy all week",
    ]
    items = [make_item(org, text) for text in texts]
    # The query's dense vector points at the other items; only the words can find the code.
    await upsert_texts(memory_index, items, np.stack([unit(0, 0, 0, 1), unit(1), unit(1, 0.1), unit(1, 0.2)]))
    query = "what was the launch code? tangerine"

    dense = await search_items(memory_index, org, Scope(), unit(1), k=1)
    lexical = await search_lexical_items(memory_index, org, Scope(), encode_query(query), k=10)

    assert dense[0][0].id != items[0].id
    assert lexical[0][0] == items[0]
    assert [item.id for item, _ in lexical] == [items[0].id]  # no shared term, no hit
    assert lexical[0][1] == pytest.approx(bm25_expected(query, texts[0], texts), rel=1e-3)


async def test_lexical_search_ranks_rarer_terms_higher_and_respects_k(memory_index) -> None:
    org = new_org()
    texts = [f"Noor talked about her day number {n}" for n in range(6)] + ["Noor adopted a puppy named Oscar"]
    items = [make_item(org, text) for text in texts]
    await upsert_texts(memory_index, items, random_units(len(items), seed=5))

    hits = await search_lexical_items(memory_index, org, Scope(), encode_query("Noor puppy"), k=3)

    assert len(hits) == 3
    assert hits[0][0].id == items[-1].id
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] == pytest.approx(bm25_expected("Noor puppy", texts[-1], texts), rel=1e-3)


async def test_lexical_search_never_returns_another_orgs_items(memory_index) -> None:
    ours, theirs = new_org(), new_org()
    mine = make_item(ours, "our roadmap mentions kiwifruit", scope=Scope(user_id="u-1"))
    other = make_item(theirs, "their secret is kiwifruit", scope=Scope(user_id="u-1"))
    await upsert_texts(memory_index, [mine, other], random_units(2, seed=6))

    hits = await search_lexical_items(memory_index, ours, Scope(user_id="u-1"), encode_query("kiwifruit secret"), k=10)
    unscoped = await search_lexical_items(memory_index, ours, Scope(), encode_query("secret"), k=10)

    assert [item.id for item, _ in hits] == [mine.id]
    assert unscoped == []
    assert await search_lexical_items(memory_index, new_org(), Scope(), encode_query("kiwifruit"), k=10) == []


async def test_lexical_search_keeps_scope_and_types(memory_index) -> None:
    org = new_org()
    alice = make_item(org, "alice plays the cello", scope=Scope(user_id="alice"), memory_type=MemoryType.FACT)
    bob = make_item(org, "bob plays the cello", scope=Scope(user_id="bob"), memory_type=MemoryType.FACT)
    note = make_item(org, "cello lesson booked", scope=Scope(user_id="alice"), memory_type=MemoryType.COMMITMENT)
    await upsert_texts(memory_index, [alice, bob, note], random_units(3, seed=7))
    query = encode_query("cello")

    async def ids(scope: Scope, *types: MemoryType) -> set[str]:
        return {item.id for item, _ in await search_lexical_items(memory_index, org, scope, query, 10, types)}

    assert await ids(Scope(user_id="alice")) == {alice.id, note.id}
    assert await ids(Scope(user_id="alice"), MemoryType.FACT) == {alice.id}
    assert await ids(Scope()) == {alice.id, bob.id, note.id}


async def test_items_written_without_a_sparse_vector_have_no_lexical_hit(memory_index) -> None:
    org = new_org()
    item = make_item(org, "the launch code is tangerine")
    await memory_index.upsert([item], np.stack([unit(1)]))

    assert await search_lexical_items(memory_index, org, Scope(), encode_query("tangerine"), k=5) == []
    assert await search_lexical_items(memory_index, org, Scope(), encode_query("the of and"), k=5) == []
    assert [hit.id for hit, _ in await search_items(memory_index, org, Scope(), unit(1), k=5)] == [item.id]


async def test_status_filter_defaults_to_active_and_warm(memory_index) -> None:
    org = new_org()
    by_status = {status: make_item(org, f"status {status} tangerine", status=status) for status in MemoryStatus}
    items = list(by_status.values())
    await upsert_texts(memory_index, items, np.stack([unit(1)] * len(items)))
    query = encode_query("tangerine")

    async def ids(filters: SearchFilter | None = None) -> tuple[set[str], set[str]]:
        extra = {} if filters is None else {"filters": filters}
        dense = await search_items(memory_index, org, Scope(), unit(1), k=10, **extra)
        lexical = await search_lexical_items(memory_index, org, Scope(), query, k=10, **extra)
        return {item.id for item, _ in dense}, {item.id for item, _ in lexical}

    default = {by_status[MemoryStatus.ACTIVE].id, by_status[MemoryStatus.WARM].id}
    assert await ids() == (default, default)
    archived = {by_status[MemoryStatus.ARCHIVED].id}
    assert await ids(SearchFilter(statuses=(MemoryStatus.ARCHIVED,))) == (archived, archived)
    everything = {item.id for item in items}
    assert await ids(SearchFilter(statuses=tuple(MemoryStatus))) == (everything, everything)


async def test_valid_at_range_and_min_salience_filters(memory_index) -> None:
    org = new_org()
    days = [make_item(org, f"diary day {n} tangerine", valid_at=T0 + timedelta(days=n)) for n in range(5)]
    faded = make_item(org, "a faded tangerine memory", valid_at=T0 + timedelta(days=2), current_salience=0.05)
    items = [*days, faded]
    await upsert_texts(memory_index, items, random_units(len(items), seed=8))
    query = encode_query("tangerine")

    async def ids(filters: SearchFilter) -> tuple[set[str], set[str]]:
        dense = await search_items(memory_index, org, Scope(), unit(1), k=10, filters=filters)
        lexical = await search_lexical_items(memory_index, org, Scope(), query, k=10, filters=filters)
        return {item.id for item, _ in dense}, {item.id for item, _ in lexical}

    window = SearchFilter(valid_after=T0 + timedelta(days=1), valid_before=T0 + timedelta(days=3))
    expected = {days[1].id, days[2].id, faded.id}  # [after, before): day 3 is out
    assert await ids(window) == (expected, expected)
    after = {item.id for item in items if item.valid_at >= T0 + timedelta(days=3)}
    assert await ids(SearchFilter(valid_after=T0 + timedelta(days=3))) == (after, after)
    before = {days[0].id}
    assert await ids(SearchFilter(valid_before=T0 + timedelta(days=1))) == (before, before)
    salient = {item.id for item in days}
    assert await ids(SearchFilter(min_salience=0.5)) == (salient, salient)


# ---------------------------------------------------------------------- the catalog


async def test_page_orders_newest_first_and_continues_after_a_cursor(memory_index) -> None:
    org = new_org()
    items = [make_item(org, f"note {n}", created_at=T0 + timedelta(minutes=n)) for n in range(5)]
    await memory_index.upsert(items, random_units(5, seed=3))
    from memory_svc.usecases.memory_ports import MemoryCursor, MemoryOrder

    first = await memory_index.page(org, Scope(), (), (), MemoryOrder.NEWEST, 2)
    second = await memory_index.page(
        org, Scope(), (), (), MemoryOrder.NEWEST, 2, MemoryCursor(first[-1].created_at, first[-1].id)
    )
    last = await memory_index.page(
        org, Scope(), (), (), MemoryOrder.NEWEST, 2, MemoryCursor(second[-1].created_at, second[-1].id)
    )
    assert [item.content for item in first + second + last] == [f"note {n}" for n in (4, 3, 2, 1, 0)]


def _tied_population(org: str, seed: int, count: int) -> list[MemoryItem]:
    """Items whose sort values collide a lot: four creation times, three saliences."""
    rng = np.random.default_rng(seed)
    return [
        make_item(
            org,
            f"tied {n}",
            created_at=T0 + timedelta(microseconds=int(rng.integers(4))),
            current_salience=float(rng.choice([0.25, 0.5, 1.0])),
        )
        for n in range(count)
    ]


@pytest.mark.parametrize("order", ["newest", "salience"])
async def test_paging_through_ties_returns_every_item_exactly_once_in_one_order(memory_index, order) -> None:
    """Keyset paging (the offsets it replaced skipped and repeated items among ties): every page
    size, through groups of equal creation times and equal saliences larger than a page."""
    from memory_svc.usecases.memory_ports import MemoryCursor, MemoryOrder

    ordering = MemoryOrder(order)
    org = new_org()
    items = _tied_population(org, seed=7, count=41)
    await memory_index.upsert(items, random_units(len(items), seed=8))
    await memory_index.upsert([make_item(new_org(), "elsewhere")], random_units(1, seed=9))
    value = (lambda item: item.created_at) if ordering is MemoryOrder.NEWEST else (lambda item: item.current_salience)
    expected = sorted(sorted(items, key=lambda item: item.id), key=value, reverse=True)

    for size in (1, 2, 3, 7, 40, 41, 50):
        seen: list[MemoryItem] = []
        after = None
        while True:
            page = await memory_index.page(org, Scope(), (), (), ordering, size, after)
            seen += page
            if len(page) < size:
                break
            after = MemoryCursor(value(page[-1]), page[-1].id)
        assert [item.id for item in seen] == [item.id for item in expected], f"page size {size}"


async def test_page_by_salience_filters_status_type_and_org(memory_index) -> None:
    org = new_org()
    from memory_svc.usecases.memory_ports import MemoryOrder

    items = [
        make_item(org, "low", current_salience=0.2),
        make_item(org, "high", current_salience=0.9),
        make_item(org, "archived", current_salience=1.0, status=MemoryStatus.ARCHIVED),
        make_item(org, "opinion", current_salience=0.5, memory_type=MemoryType.OPINION),
        make_item(new_org(), "elsewhere", current_salience=1.0),
    ]
    await memory_index.upsert(items, random_units(5, seed=4))
    active_facts = await memory_index.page(
        org, Scope(), (MemoryType.FACT,), (MemoryStatus.ACTIVE,), MemoryOrder.SALIENCE, 10
    )
    assert [item.content for item in active_facts] == ["high", "low"]
    everything = await memory_index.page(org, Scope(), (), (), MemoryOrder.SALIENCE, 10)
    assert [item.content for item in everything] == ["archived", "high", "opinion", "low"]


async def test_replace_payloads_rewrites_fields_and_keeps_the_vector(memory_index) -> None:
    org = new_org()
    item = make_item(org, "tea", importance=0.5)
    await memory_index.upsert([item], np.stack([unit(1, 0)]))
    from dataclasses import replace

    await memory_index.replace_payloads(
        org, [replace(item, importance=0.9, status=MemoryStatus.ARCHIVED, access_count=3)]
    )
    (stored,) = await memory_index.get(org, [item.id])
    assert (stored.importance, stored.status, stored.access_count) == (0.9, MemoryStatus.ARCHIVED, 3)
    hits = await search_items(memory_index, org, Scope(), unit(1, 0), 1, filters=SearchFilter(statuses=()))
    assert hits[0][0].id == item.id and hits[0][1] == pytest.approx(1.0, abs=1e-5)


async def test_delete_scope_erases_only_the_subject_of_that_org(memory_index) -> None:
    org, other = new_org(), new_org()
    subject, bystander = Scope(user_id="leaving"), Scope(user_id="staying")
    doomed = [make_item(org, "a", scope=subject), make_item(org, "b", scope=Scope(user_id="leaving", agent_id="x"))]
    kept = [make_item(org, "c", scope=bystander), make_item(other, "d", scope=subject)]
    await memory_index.upsert(doomed + kept, random_units(4, seed=5))
    deleted = await memory_index.delete_scope(org, subject)
    assert sorted(deleted) == sorted(item.id for item in doomed)
    assert await memory_index.get(org, [item.id for item in doomed]) == []
    assert len(await memory_index.get(org, [kept[0].id])) == 1
    assert len(await memory_index.get(other, [kept[1].id])) == 1


async def test_iterate_yields_every_item_of_the_org_and_scope_once(memory_index) -> None:
    org = new_org()
    mine = [
        make_item(
            org, f"n{n}", scope=Scope(user_id="u"), status=MemoryStatus.ARCHIVED if n % 2 else MemoryStatus.ACTIVE
        )
        for n in range(7)
    ]
    noise = [
        make_item(org, "other user", scope=Scope(user_id="v")),
        make_item(new_org(), "other org", scope=Scope(user_id="u")),
    ]
    await memory_index.upsert(mine + noise, random_units(9, seed=6))
    batches = [batch async for batch in memory_index.iterate(org, Scope(user_id="u"), 3)]
    assert all(len(batch) <= 3 for batch in batches)
    assert sorted(item.id for batch in batches for item in batch) == sorted(item.id for item in mine)


async def test_a_partial_replace_writes_only_the_named_fields(memory_index) -> None:
    from dataclasses import replace

    org = new_org()
    item = make_item(org, "tea", importance=0.5)
    await memory_index.upsert([item], np.stack([unit(1, 0)]))
    changed = replace(item, importance=0.1, access_count=7, current_salience=1.7)
    await memory_index.replace_payloads(org, [changed], ("access_count", "current_salience"))
    (stored,) = await memory_index.get(org, [item.id])
    assert (stored.importance, stored.access_count, stored.current_salience) == (0.5, 7, 1.7)


async def test_iterate_vectors_yields_matching_items_with_their_stored_vectors(memory_index) -> None:
    org = new_org()
    kept = [make_item(org, f"fact {index}", scope=Scope(user_id="u-1")) for index in range(5)]
    archived = make_item(org, "old", scope=Scope(user_id="u-1"), status=MemoryStatus.ARCHIVED)
    message = make_item(org, "said", scope=Scope(user_id="u-1"), memory_type=MemoryType.MESSAGE)
    elsewhere = make_item(new_org(), "theirs", scope=Scope(user_id="u-1"))
    vectors = random_units(8, seed=11)
    await memory_index.upsert([*kept, archived, message, elsewhere], vectors)

    seen: dict[str, np.ndarray] = {}
    batches = memory_index.iterate_vectors(
        org, Scope(user_id="u-1"), [MemoryType.FACT], [MemoryStatus.ACTIVE], batch_size=2
    )
    async for items, rows in batches:
        assert len(items) == len(rows) <= 2
        seen.update({item.id: row for item, row in zip(items, rows, strict=True)})

    assert set(seen) == {item.id for item in kept}
    for position, item in enumerate(kept):
        np.testing.assert_allclose(seen[item.id], vectors[position], atol=1e-5)


async def test_org_ids_lists_every_org_holding_items(memory_index) -> None:
    first, second = new_org(), new_org()
    await memory_index.upsert([make_item(first), make_item(second), make_item(second)], random_units(3, seed=5))

    orgs = await memory_index.org_ids()

    assert {first, second} <= set(orgs)
    assert orgs == sorted(orgs)


# --- where messages were said: one session's messages, inside the same walls as a search ---------


def message(org_id: str, session: str, place: int, **fields: object) -> MemoryItem:
    values: dict[str, object] = {
        "memory_type": MemoryType.MESSAGE,
        "scope": Scope(user_id="u-1"),
        "provenance": Provenance(session_id=session),
        "valid_at": T0 + timedelta(seconds=place),
        "created_at": T0 + timedelta(minutes=place),
    }
    values.update(fields)
    return make_item(org_id, f"turn {place} of {session}", **values)


async def test_said_in_session_gives_where_each_message_of_the_session_was_said(memory_index) -> None:
    org = new_org()
    mine = [
        message(org, "s-1", place, provenance=Provenance(session_id="s-1", speaker=f"Speaker {place}"))
        for place in range(3)
    ]
    others = [
        message(org, "s-2", 9),
        message(org, "s-1", 5, memory_type=MemoryType.FACT),
        message(org, "s-1", 6, status=MemoryStatus.ARCHIVED),
    ]
    await memory_index.upsert([*mine, *others], random_units(6, seed=5))

    told = await memory_index.said_in_session(org, Scope(user_id="u-1"), "s-1", 10, filters=SearchFilter())

    assert sorted(
        (place.id, place.session_id, place.valid_at, place.created_at, place.speaker) for place in told
    ) == sorted((item.id, "s-1", item.valid_at, item.created_at, item.provenance.speaker) for item in mine)
    assert len(await memory_index.said_in_session(org, Scope(user_id="u-1"), "s-1", 2)) == 2
    assert await memory_index.said_in_session(org, Scope(user_id="u-1"), "s-1", 10, [MemoryType.FACT]) == []


async def test_said_in_session_never_crosses_an_org_or_a_user(memory_index) -> None:
    org, other_org = new_org(), new_org()
    mine = message(org, "shared", 1)
    await memory_index.upsert(
        [
            mine,
            message(org, "shared", 2, scope=Scope(user_id="u-2")),
            message(other_org, "shared", 3),
            message(org, "shared", 4, scope=Scope(), valid_at=T0 - timedelta(days=30)),
        ],
        random_units(4, seed=6),
    )

    as_context = await memory_index.said_in_session(
        org, Scope(user_id="u-1"), "shared", 10, scope_match=ScopeMatch.CONTEXT
    )
    as_browse = await memory_index.said_in_session(org, Scope(user_id="u-1"), "shared", 10)
    recent = await memory_index.said_in_session(
        org, Scope(user_id="u-1"), "shared", 10, filters=SearchFilter(valid_after=T0 - timedelta(days=1)),
        scope_match=ScopeMatch.CONTEXT,
    )  # fmt: skip

    assert len(as_context) == 2 and mine.id in {place.id for place in as_context}  # the user's and the org's
    assert [place.id for place in as_browse] == [mine.id]
    assert [place.id for place in recent] == [mine.id]


async def test_access_counts_reads_the_stored_counts_of_the_orgs_items_only(memory_index) -> None:
    org, other_org = new_org(), new_org()
    used, fresh = make_item(org, "first", access_count=3), make_item(org, "second")
    elsewhere = make_item(other_org, "third", access_count=7)
    await memory_index.upsert([used, fresh, elsewhere], random_units(3, seed=8))

    counts = await memory_index.access_counts(org, [used.id, fresh.id, elsewhere.id, str(uuid.uuid4()), "not-a-uuid"])

    assert counts == {used.id: 3, fresh.id: 0}
    assert await memory_index.access_counts(org, []) == {}


async def test_access_targets_read_the_id_scope_and_type_of_the_orgs_items_in_the_order_asked(memory_index) -> None:
    org = new_org()
    fact = make_item(org, "first", scope=Scope(user_id="u-1", agent_id="a-1", team_id="t-1"))
    skill = make_item(org, "second", memory_type=MemoryType.SKILL, scope=Scope(user_id="u-2"))
    elsewhere = make_item(new_org(), "third", scope=Scope(user_id="u-1"))
    await memory_index.upsert([fact, skill, elsewhere], random_units(3, seed=9))

    asked = [skill.id, elsewhere.id, str(uuid.uuid4()), "not-a-uuid", fact.id]
    targets = await memory_index.access_targets(org, asked)

    assert targets == [AccessTarget.of(skill), AccessTarget.of(fact)]
    assert await memory_index.access_targets(org, []) == []


async def test_write_access_rewrites_the_access_fields_only(memory_index) -> None:
    from dataclasses import replace

    org = new_org()
    item = make_item(org, "tea", importance=0.4, metadata={"kept": "yes"}, scope=Scope(user_id="u-1"))
    await memory_index.upsert([item], np.stack([unit(1, 0)]))
    later = T0 + timedelta(days=2, microseconds=17)

    await memory_index.write_access(org, [AccessRefresh(AccessTarget.of(item), 5, later, 1.25)])

    (stored,) = await memory_index.get(org, [item.id])
    assert (stored.access_count, stored.last_accessed_at, stored.current_salience) == (5, later, 1.25)
    assert stored == replace(item, access_count=5, last_accessed_at=later, current_salience=1.25)
    assert [hit for hit, _ in await search_items(memory_index, org, Scope(), unit(1, 0), 1)] == [stored]
