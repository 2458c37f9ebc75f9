"""A secret typed alone in answer to the assistant's question for one is replaced before the turn is
kept; the same words after any other question, or a sentence after that question, stay as said."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.domain.secret_answers import asked_kind, without_answered_secret
from agent_svc.domain.transcript import Scope, TurnDraft
from agent_svc.domain.turn_loop import Opaque
from agent_svc.usecases.import_turns import prepare
from agent_svc.usecases.process_turn import TurnServices, process_turn
from agent_svc.usecases.sessions import start_session
from lore_runtime.redaction import ALL_KINDS, Kind

from tests.fakes import FixedClock
from tests.fakes_agent import FakeContextAssembler, FakeWorkingMemory, InMemoryTranscript, InMemoryTurnLoop

ORG = "org-a"


@pytest.mark.parametrize(
    ("question", "answer", "kept"),
    [
        ("What's the wifi password?", "Marmalade99.", "[password]"),
        ("What's the wifi password?", "it's Marmalade99", "it's [password]"),
        ("Could you tell me your PIN?", "4821", "[password]"),
        ("What's the door code?", "sure, 7731#", "sure, [password]"),
        ("Please paste the API key here.", "sk_live_notreal_7fQ2", "[API key]"),
        ("Which token should I use?", '"tok-91XsQ"', "[API key]"),
        ("What's the passcode for the gate?", "sunflower", "[password]"),
    ],
)
def test_a_bare_answer_to_a_question_for_a_secret_is_replaced(question, answer, kept):
    assert without_answered_secret(question, answer, ALL_KINDS) == kept


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's the wifi password?", "I don't have one."),  # a sentence, not the secret
        ("What's the wifi password?", "Why?"),
        ("What's the wifi password?", "Dunno."),
        ("What's the wifi password?", "[password]"),  # redacted already
        ("What's your favourite colour?", "Teal."),  # no secret was asked for
        ("I changed the wifi password yesterday.", "Marmalade99."),  # no question
        ("What's the name of your cat?", "Pickles"),
    ],
)
def test_any_other_answer_stays_as_said(question, answer):
    assert without_answered_secret(question, answer, ALL_KINDS) == answer


def test_a_kind_left_out_of_the_setting_is_not_replaced():
    assert asked_kind("What's the wifi password?") is Kind.PASSWORD
    assert without_answered_secret("What's the wifi password?", "Marmalade99.", frozenset({Kind.CARD})) == (
        "Marmalade99."
    )


async def test_through_the_turn_loop_the_answer_is_kept_without_the_secret_and_a_retry_replays_it():
    transcript = InMemoryTranscript()
    services = TurnServices(
        transcript, InMemoryTurnLoop(transcript), FakeWorkingMemory(), FakeContextAssembler(), FixedClock()
    )
    session = await start_session(ORG, Scope(user_id="u-1"), {}, "start-1", transcript=transcript, clock=FixedClock())

    async def say(role: str, content: str, key: str):
        return await process_turn(
            ORG, session.id, TurnDraft(role=role, content=content, idempotency_key=key), Opaque(b""), services
        )

    await say("user", "Can you save the wifi details for the flat?", "k1")
    await say("assistant", "Sure. What's the wifi password?", "k2")
    answered = await say("user", "Marmalade99.", "k3")
    again = await say("user", "Marmalade99.", "k3")
    stored = [turn.content for turn in transcript.turns_by_session[(ORG, session.id)]]
    assert stored[-1] == "[password]" and "Marmalade99" not in repr(stored)
    assert answered.turn.content == again.turn.content == "[password]" and again.replayed
    # The context was assembled for the redacted words, and that is what a retry replays.
    assert again.result.context == answered.result.context == b"payload:[password]"
    later = await say("user", "Marmalade99.", "k4")  # the question is no longer the turn before
    assert later.turn.content == "Marmalade99."


def test_an_import_replaces_the_bare_answer_to_the_question_before_it_in_the_batch():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    drafts = [
        TurnDraft(role="assistant", content="What's the PIN for the garage?"),
        TurnDraft(role="user", content="4821"),
        TurnDraft(role="user", content="4821"),  # the turn before is the user's: a number as said
    ]
    _question, answer, again = prepare("s-1", drafts, now)
    assert (answer.content, again.content) == ("[password]", "4821")
    # The automatic key is taken of the redacted words: it holds nothing of the secret.
    assert answer.idempotency_key != prepare("s-1", drafts, now, frozenset())[1].idempotency_key
    assert prepare("s-1", drafts, now, frozenset())[1].content == "4821"
