"""Episode summaries without a model: the sentences that best cover the conversation."""

from __future__ import annotations

import numpy as np
from agent_svc.domain.rules.central import (
    SUMMARY_CHARS,
    conversation_sentences,
    pick_summary,
    summary_of,
)
from agent_svc.usecases.episodes import summarise_conversation

# A conversation about two things: the move (four sentences) and the dog (two), plus small talk.
TURNS = [
    ("user", "Hi there! How are you?"),
    ("assistant", "Good, thanks. What's new with you?"),
    ("user", "We finally signed the lease for the flat in Porto. The movers come on the third."),
    ("assistant", "Congratulations on the new flat in Porto! Packing the kitchen always takes longest."),
    ("user", "The flat in Porto has a balcony facing the river. Also our dog Biscuit hurt his paw."),
    ("assistant", "Poor Biscuit, I hope the vet can look at his paw soon."),
]
MOVE, DOG, CHAT = np.eye(3, dtype=np.float32)
TOPIC = {"Porto": MOVE, "flat": MOVE, "movers": MOVE, "kitchen": MOVE, "Biscuit": DOG, "paw": DOG}


def _vector(text: str) -> np.ndarray:
    row = next((vector for word, vector in TOPIC.items() if word in text), CHAT)
    return row / np.linalg.norm(row)


class TopicEmbedder:
    """A sentence's vector is its topic's: enough to see what the choice covers."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    async def embed(self, texts) -> np.ndarray:
        self.batches.append(len(texts))
        return np.stack([_vector(text) for text in texts])


def test_questions_and_small_talk_are_never_quoted() -> None:
    said = conversation_sentences(TURNS)

    quoted = [sentence.text for sentence in said if sentence.quotable]
    assert "Hi there!" not in quoted and "How are you?" not in quoted
    assert "What's new with you?" not in quoted
    assert "We finally signed the lease for the flat in Porto." in quoted


async def test_the_summary_covers_each_part_of_the_conversation_not_only_its_main_topic() -> None:
    embedder = TopicEmbedder()

    summary = await summarise_conversation(TURNS, embedder)

    assert "Porto" in summary and "Biscuit" in summary, summary
    assert embedder.batches == [len(conversation_sentences(TURNS))], "one embedding batch"


async def test_the_summary_is_told_in_the_third_person_in_the_conversation_order() -> None:
    summary = await summarise_conversation(TURNS, TopicEmbedder())

    assert summary.startswith("The user and the assistant talked about"), summary
    assert "User:" not in summary and "Assistant:" not in summary
    positions = [summary.find(part) for part in ("lease", "Biscuit hurt")]
    assert -1 not in positions and positions == sorted(positions)


async def test_the_speakers_are_named_when_the_turns_carry_names() -> None:
    summary = await summarise_conversation(TURNS, TopicEmbedder(), names={"user": "Ines", "assistant": "Tom"})

    assert summary.startswith("Ines and Tom talked about"), summary
    assert "the user" not in summary.lower() and "the assistant" not in summary.lower()


async def test_the_summary_never_pastes_a_whole_turn_and_fits_its_budget() -> None:
    long_turns = [
        (
            "user",
            f"I fixed flaky test number {n} in the payments suite. It failed on slow machines only. "
            f"The retry in batch {n} hid it for weeks.",
        )
        for n in range(60)
    ]
    said = conversation_sentences(long_turns)
    vectors = np.random.default_rng(7).normal(size=(len(said), 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

    summary = summary_of(said, vectors)

    assert 0 < len(summary) <= SUMMARY_CHARS
    assert not any(content in summary for _, content in long_turns)


def test_a_sentence_said_twice_is_quoted_once() -> None:
    said = conversation_sentences([("user", "The build is green again. The build is green again.")] * 3)
    vectors = np.ones((len(said), 4), dtype=np.float32) / 2

    assert summary_of(said, vectors) == "User: The build is green again."


def test_nothing_quotable_gives_no_summary() -> None:
    said = conversation_sentences([("user", "Hi!"), ("assistant", "Hello! How can I help?")])

    assert pick_summary(np.eye(len(said), dtype=np.float32), said) == []


async def test_nothing_quotable_asks_no_embedding() -> None:
    embedder = TopicEmbedder()

    assert await summarise_conversation([("user", "Thanks!"), ("tool", "ok")], embedder) == ""
    assert embedder.batches == []


def test_with_room_for_one_sentence_it_is_from_what_the_conversation_is_mostly_about() -> None:
    said = conversation_sentences(TURNS)
    vectors = np.stack([_vector(sentence.text) for sentence in said])
    room = max(len(sentence.text) for sentence in said) + 20

    summary = summary_of(said, vectors, budget=room)

    assert summary.count(". ") + summary.count("! ") == 0, "one sentence"
    assert "Porto" in summary or "movers" in summary or "kitchen" in summary, summary
