"""Engagement proposals from hedged causal statements, denials and open questions; robustness."""

from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.rules.claims import extract_claims
from agent_svc.domain.rules.emotion import detect_emotion
from agent_svc.domain.rules.memories import MAX_MEMORIES_PER_TURN, extract_memories
from agent_svc.domain.rules.summary import summarise
from hypothesis import given, settings
from hypothesis import strategies as st


async def test_hypotheses_with_supporting_and_contradicting_lines_and_unknowns() -> None:
    proposal = await RuleExtractor().engagement(
        [
            Utterance("user", "I suspect the churn comes from pricing.", "a"),
            Utterance("user", "We don't know why the churn spiked in March.", "b"),
            Utterance("assistant", "Maybe the outage is caused by the cache.", "c"),
            Utterance("user", "It's not the pricing, the survey says so.", "d"),
            Utterance("user", "I wonder if the new onboarding helps.", "e"),
            Utterance("user", "Maybe we should order pizza."),
        ]
    )
    assert [h.statement for h in proposal.hypotheses] == [
        "The churn comes from pricing.",
        "The outage is caused by the cache.",
    ]
    churn = proposal.hypotheses[0]
    assert [(e.supports, e.turn_id) for e in churn.evidence] == [(True, "a"), (False, "d")]
    assert churn.evidence[0].statement == "I suspect the churn comes from pricing."
    assert proposal.unknowns == ("Why the churn spiked in March", "Whether the new onboarding helps")


async def test_plain_talk_proposes_nothing() -> None:
    proposal = await RuleExtractor().engagement([Utterance("user", "Thanks, see you tomorrow.")])
    assert proposal.hypotheses == () and proposal.unknowns == ()


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=2000), st.sampled_from(["user", "assistant", "system", "tool"]))
def test_any_text_never_raises_and_stays_bounded(text: str, role: str) -> None:
    memories = extract_memories(text, role)
    assert len(memories) <= MAX_MEMORIES_PER_TURN
    assert all(0 <= m.importance <= 1 and len(m.content) <= 2 * len(text) + 80 for m in memories)
    assert len(extract_claims(text, role)) <= 12
    emotion = detect_emotion(text, role)
    assert emotion is None or (-1 <= emotion.valence <= 1 and 0 <= emotion.intensity <= 1)
    assert len(summarise([(role, text)], 600)) <= 600


async def test_huge_and_odd_turns_do_not_raise() -> None:
    extractor = RuleExtractor()
    odd = ["I'll send it Friday. " * 800, "🙂" * 16_000, "\n\n\n", "x" * 16_000, "```" + "I'm vegan\n" * 1000]
    turns = [Utterance("user", text) for text in odd]
    for turn in turns:
        reflection = await extractor.reflect(turn, turns)
        assert len(reflection.memories) <= MAX_MEMORIES_PER_TURN and len(reflection.summary) <= 600
    episode = await extractor.summarise(turns)
    assert len(episode.summary) <= 600 and len(episode.open_threads) <= 10
    await extractor.engagement(turns)
