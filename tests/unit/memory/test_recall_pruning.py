"""Recall reads items most relevant first and stops once no unread candidate can still make the
top k: its results must be exactly those of ranking every candidate (domain.ranking.hybrid_rank)."""

from __future__ import annotations

import dataclasses
import random
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from memory_svc.domain.dense_query import dense_query
from memory_svc.domain.lexical import encode_query
from memory_svc.domain.model import MemoryDraft, MemoryType, Provenance, Scope
from memory_svc.domain.ranking import hybrid_rank
from memory_svc.usecases.memory_ports import SearchFilter
from memory_svc.usecases.recall import CANDIDATE_FACTOR, recall
from memory_svc.usecases.remember import remember

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex

WORDS = "tea coffee lisbon porto jazz chess bike sourdough kayak orchid film rust".split()


class CountingIndex(InMemoryMemoryIndex):
    def __init__(self) -> None:
        super().__init__()
        self.read = 0

    async def get(self, org_id, ids):
        self.read += len(ids)
        return await super().get(org_id, ids)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(1, 12), min_salience=st.sampled_from([None, 0.3, 0.9]))
async def test_pruned_recall_equals_ranking_every_candidate(seed, k, min_salience):
    """Messages of three sessions (and without one) by two speakers (or none) among facts, and
    questions naming one speaker, both or none: the conversation lift included, the sessions read
    whole and the named speaker's lift too."""
    rng = random.Random(seed)
    index, embedder, clock = CountingIndex(), HashingEmbedder(), FixedClock()
    drafts = [
        MemoryDraft(
            content=" ".join(rng.sample(WORDS, 3)),
            memory_type=rng.choice([MemoryType.FACT, MemoryType.MESSAGE]),
            scope=Scope(user_id="u"),
            importance=rng.random(),
            valid_at=clock.now() - timedelta(minutes=rng.randrange(600)),
            provenance=Provenance(
                session_id=rng.choice(["", "s-1", "s-2", "s-3"]), speaker=rng.choice(["", "Noor", "Ines"])
            ),
        )
        for _ in range(60)
    ]
    items = await remember(
        "org", drafts, "", index=index, embedder=embedder, clock=clock, erased=InMemoryErasedMemories()
    )
    # Accesses and age vary, so salience and importance reorder results of similar relevance.
    aged = [
        dataclasses.replace(
            item,
            access_count=rng.randrange(5),
            last_accessed_at=item.last_accessed_at - timedelta(days=rng.randrange(200)),
        )
        for item in items
    ]
    await index.replace_payloads("org", aged)
    clock.advance(days=1)
    first, second = rng.sample(WORDS, 2)
    query = f"{first} {rng.choice(['', 'Noor', 'Ines', 'Noor and Ines'])} {second}"

    index.read = 0
    pruned = await recall(
        "org", query, Scope(user_id="u"), k, index=index, embedder=embedder, clock=clock, min_salience=min_salience
    )

    depth = k * CANDIDATE_FACTOR
    (vector,) = await embedder.embed([dense_query(query)])
    dense = await index.search("org", Scope(user_id="u"), vector, depth, filters=SearchFilter())
    lexical = await index.search_lexical("org", Scope(user_id="u"), encode_query(query), depth)
    by_id = {item.id: item for item in await index.get("org", [key for key, _ in [*dense, *lexical]])}
    expected = hybrid_rank(
        [(by_id[key], value) for key, value in dense],
        [(by_id[key], value) for key, value in lexical],
        clock.now(),
        k,
        min_salience=min_salience,
        kept_by_filters=aged,  # every item is the user's and active: the searches' filters keep them all
        query=query,
    )
    assert [(hit.item.id, round(hit.score, 9)) for hit in pruned] == [
        (hit.item.id, round(hit.score, 9)) for hit in expected
    ]


async def test_recall_reads_only_the_candidates_that_can_still_make_the_top_k():
    index, embedder, clock = CountingIndex(), HashingEmbedder(), FixedClock()
    drafts = [
        MemoryDraft(
            content=f"tea note {number} " + " ".join(WORDS[: number % 12]),
            memory_type=MemoryType.FACT,
            scope=Scope(user_id="u"),
        )
        for number in range(60)
    ]
    await remember("org", drafts, "", index=index, embedder=embedder, clock=clock, erased=InMemoryErasedMemories())
    index.read = 0

    hits = await recall("org", "tea note", Scope(user_id="u"), 3, index=index, embedder=embedder, clock=clock)

    assert len(hits) == 3
    assert index.read < 3 * CANDIDATE_FACTOR  # 24 candidates found, far fewer read
