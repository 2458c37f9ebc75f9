"""The kind reader: a fact said after small talk in one long chat line, or in words no pattern
knows, is learnt when the packaged embedding model vouches for its kind; a supposition, someone
else's fact, a question or a line the patterns already read gives nothing more.

Sentences are our own, never LoCoMo's nor the paraphrase suite's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from agent_svc.domain.extraction import TurnReflection, Utterance
from agent_svc.domain.rules.extractor import RuleExtractor
from agent_svc.domain.rules.kind_prototypes import NO_FACT, PROTOTYPES
from agent_svc.domain.rules.kinds import KIND_SLOTS, KindReader
from lore_embeddings import OnnxMiniLmEmbedder


@pytest.fixture(scope="module")
def reader() -> KindReader:
    return KindReader(OnnxMiniLmEmbedder.load())


async def _reflect(reader: KindReader, text: str) -> TurnReflection:
    return await RuleExtractor(reader).reflect(Utterance("user", text), [])


@pytest.mark.parametrize(
    ("text", "content", "slot"),
    [
        # a fact after small talk, in a line with no full stop
        (
            "long week at work honestly but anyway my birthday is on the 2nd of november and i want a quiet one",
            "The user's birthday is the 2nd of november.",
            "birthday",
        ),
        (
            "cant wear wool jumpers at all cos im allergic to lanolin",
            "The user is allergic to lanolin.",
            "allergy:lanolin",
        ),
        # words no pattern knows, read by the kind's own slot reader
        (
            "making dinner for friends and fyi walnuts make my throat swell so none of those",
            "The user is allergic to walnuts.",
            "allergy:walnuts",
        ),
        (
            "ugh the hoover woke the baby and my puppy bramble keeps barking at it",
            "The user's puppy is called Bramble.",
            "pet:puppy",
        ),
        (
            "looking for a pottery class in derby thats where i live",
            "The user lives in Derby.",
            "home_city",
        ),
        (
            "so the 6th of june is our anniversary and i forgot last year",
            "The user's wedding anniversary is 6th of june.",
            "anniversary",
        ),
    ],
)
async def test_a_buried_fact_is_learnt_in_the_users_frame(
    reader: KindReader, text: str, content: str, slot: str
) -> None:
    found = await _reflect(reader, text)
    assert content in [m.content for m in found.memories]
    assert slot in [c.slot for c in found.claims]


@pytest.mark.parametrize(
    "text",
    [
        "the patterns miss nothing here, i wish my puppy bramble was better behaved",
        "my neighbour says walnuts make her throat swell so she never eats them",
        "if we ever moved i think derby thats where i live would be the place to leave",
        "do you think the 6th of june is our anniversary or was it the 7th",
        "haha my brother keeps telling everyone im allergic to mondays",
        "the kids next door have a tortoise called gerald and it escapes every week",
        "my old cat was called tiger but she went to live with my aunt",
        "sorry busy day my neighbour has a parrot called polly that screams all day",
    ],
)
async def test_a_supposition_someone_elses_fact_or_a_question_gives_no_fact(reader: KindReader, text: str) -> None:
    found = await _reflect(reader, text)
    assert not [c for c in found.claims if c.slot.startswith(("allergy", "pet:", "home_city", "anniversary"))]
    assert not [m for m in found.memories if "walnut" in m.content.lower() or "mondays" in m.content.lower()]
    assert not [m for m in found.memories if m.content.startswith(("The user's tortoise", "The user's cat"))]
    assert not [m for m in found.memories if m.content.startswith("The user's parrot")]


async def test_a_hedge_reaches_back_only_to_the_lines_last_turn(reader: KindReader) -> None:
    found = await _reflect(reader, "we might adopt a cat one day but honestly im allergic to cat hair lol")
    assert [c.slot for c in found.claims] == ["allergy:cat_hair"]
    hedged = await _reflect(reader, "we might adopt a cat one day if im not allergic to cat hair")
    assert not [c for c in hedged.claims if c.slot.startswith("allergy")]


async def test_what_self_disclosure_wrote_is_not_cut_down_and_written_again(reader: KindReader) -> None:
    text = "I'm 52 and semi-retired, so I have plenty of time for the garden."
    plain = await RuleExtractor().reflect(Utterance("user", text), [])
    with_kinds = await _reflect(reader, text)
    assert [m.content for m in with_kinds.memories] == [m.content for m in plain.memories]


async def test_a_request_without_its_mark_and_a_report_after_the_fact_still_tell_it(reader: KindReader) -> None:
    asked = await _reflect(reader, "can you find me a climbing wall in stirling thats where i live")
    assert "home_city" in [c.slot for c in asked.claims]
    reported_after = await _reflect(reader, "my aunt was born on the 8th of may which she says makes her a taurus")
    assert "family:aunt:birthday" in [c.slot for c in reported_after.claims]


async def test_a_buried_statement_self_disclosure_would_keep_is_kept(reader: KindReader) -> None:
    found = await _reflect(reader, "rough night, im a midwife so i never know when ill get to bed")
    assert "The user is a midwife." in [m.content for m in found.memories]


async def test_words_passed_on_are_not_read_from_the_middle(reader: KindReader) -> None:
    found = await _reflect(reader, "rumour has it i'm being moved to the glasgow office next year")
    assert not [m for m in found.memories if "glasgow" in m.content.lower()]


async def test_a_line_the_patterns_read_is_not_read_twice(reader: KindReader) -> None:
    plain = await RuleExtractor().reflect(Utterance("user", "I'm allergic to peanuts."), [])
    with_kinds = await _reflect(reader, "I'm allergic to peanuts.")
    assert [m.content for m in with_kinds.memories] == [m.content for m in plain.memories]
    assert [c.slot for c in with_kinds.claims] == [c.slot for c in plain.claims]


async def test_small_talk_is_nearest_no_fact(reader: KindReader) -> None:
    [ranked] = await reader.nearest(["honestly what a day, so tired right now"])
    assert ranked[0][0] == "none"


async def test_the_model_vouches_only_for_a_kind_the_facts_fit(reader: KindReader) -> None:
    """Words a slot reader takes for a pet's name are refused when they read nearest no fact."""
    [ranked] = await reader.nearest(["stuck in traffic again, so tired right now"])
    assert ranked[0][0] == "none"
    found = await _reflect(reader, "stuck in traffic again so tired right now and my car is making a noise")
    assert not [c for c in found.claims if c.slot.startswith(("pet:", "allergy"))]


class _Broken:
    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("embedder is closed")


async def test_a_failing_model_leaves_the_patterns_reading() -> None:
    text = "long week at work honestly but anyway my birthday is on the 2nd of november and i want a quiet one"
    plain = await RuleExtractor().reflect(Utterance("user", text), [])
    found = await RuleExtractor(KindReader(_Broken())).reflect(Utterance("user", text), [])
    assert [m.content for m in found.memories] == [m.content for m in plain.memories]


def test_every_kind_has_prototypes_and_the_slots_are_kinds() -> None:
    assert len(PROTOTYPES) == 44
    assert all(len(said) >= 3 for said in PROTOTYPES.values())
    assert set(KIND_SLOTS) <= set(PROTOTYPES)
    assert len(NO_FACT) >= 15
