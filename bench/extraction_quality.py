"""Extraction quality on LoCoMo: how many of a speaker's gold facts the default (no-model) extractor
captures, and how many of its memories are right, next to a copy baseline.

    .venv/bin/python -m bench.extraction_quality [--data ../shared/data/locomo-dev.json] [--sample 50]

Each conversation is read twice, once from each speaker's side: that speaker is the user, the
other the assistant. Every turn goes through ``RuleExtractor.reflect`` with the eight turns before
it, in order, exactly as reflection calls it (in-process: the extractor is pure, and the services
around it change nothing of what it returns). Over the memories extracted from the user's turns:

- **fact recall**: a gold fact of that speaker (``observation``, the speaker's name written as
  "the user") is captured when some memory has cosine >= 0.6 to it with the packaged model;
- **precision**: memories whose best cosine to a gold fact of that speaker is >= 0.6;
- **one to one**: the same two figures when each gold fact and each memory is matched at most
  once (the best pairs first, cosine >= 0.6);
- **references**: the share of memories holding a pronoun or demonstrative ("it", "they", "them",
  "this", "these", "those", "he", "she", "him", "her") whose referent they may not name;
- the same for a **copy baseline**: every sentence the speaker said, pronouns swapped to the third
  person;
- the extractor's CPU per turn.

Conversations 0-2 are the ones to look at while tuning; 3-5 are held out: both are reported.
``--sample N`` prints N memories of the held-out part drawn at random (seed ``--seed``), each
marked as standing alone or holding a reference, for a closing audit.
The data is for measuring only (non-commercial licence): the rules and their tests use sentences
of our own.

``--model URL [--model-name NAME] [--limit N]`` measures a language model instead, next to the rules on
the same turns (``docs/language-model.md``): the held-out conversations' first speaker as the user, their
LoCoMo sessions in order until N turns (300 by default) are read (a session cut short is scored on the
gold facts whose evidence turns were read); each turn goes through the model extractor as reflection
calls it (prompt, JSON schema, validation, one retry) and through the rules. Three rows, scored as
above on the gold facts read: the **rules** alone, the **model** alone (nothing when its answer fell
back) and the **hybrid** reflection writes (the rules where sure, the model's additions); then the
paths the model's calls took and the time and tokens per turn, the rules' time beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from agent_svc.domain.extraction import TurnReflection, Utterance
from agent_svc.domain.hybrid_reflection import merge_reflections
from agent_svc.domain.rules.extractor import RuleExtractor
from agent_svc.domain.rules.kinds import KindReader
from lore_embeddings import OnnxMiniLmEmbedder

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
THRESHOLD = 0.6
WINDOW = 8
TUNING = (0, 1, 2)

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SWAPS = [
    (r"\bI'm\b", "the user is"),
    (r"\bI am\b", "the user is"),
    (r"\bI've\b", "the user has"),
    (r"\bI'll\b", "the user will"),
    (r"\bI'd\b", "the user would"),
    (r"\bI was\b", "the user was"),
    (r"\bI\b", "the user"),
    (r"\bmy\b", "the user's"),
    (r"\bmine\b", "the user's"),
    (r"\bme\b", "the user"),
    (r"\bmyself\b", "the user"),
]


def third_person(sentence: str) -> str:
    for pattern, replacement in _SWAPS:
        sentence = re.sub(pattern, replacement, sentence, flags=re.IGNORECASE)
    return sentence[:1].upper() + sentence[1:]


_REFERENCE = re.compile(r"\b(?:it|they|them|this|these|those|he|she|him|her)\b", re.IGNORECASE)


@dataclass
class Tally:
    facts: int = 0
    captured: int = 0
    memories: int = 0
    right: int = 0
    paired: int = 0  # one-to-one matches
    references: int = 0

    def add(self, other: Tally) -> None:
        self.facts += other.facts
        self.captured += other.captured
        self.memories += other.memories
        self.right += other.right
        self.paired += other.paired
        self.references += other.references

    def line(self) -> str:
        recall = self.captured / self.facts if self.facts else 0.0
        precision = self.right / self.memories if self.memories else 0.0
        one_recall = self.paired / self.facts if self.facts else 0.0
        one_precision = self.paired / self.memories if self.memories else 0.0
        references = self.references / self.memories if self.memories else 0.0
        return (
            f"fact recall {recall:.3f} ({self.captured}/{self.facts}), "
            f"precision {precision:.3f} ({self.right}/{self.memories}); "
            f"one to one {one_recall:.3f} / {one_precision:.3f} ({self.paired}); "
            f"references {references:.3f} ({self.references})"
        )


def one_to_one(similarity: np.ndarray) -> int:
    """Pairs of (gold fact, memory) at cosine >= THRESHOLD, each used at most once, best first."""
    pairs = np.argwhere(similarity >= THRESHOLD)
    order = np.argsort(-similarity[pairs[:, 0], pairs[:, 1]], kind="stable")
    facts, memories = set(), set()
    for fact, memory in pairs[order]:
        if fact not in facts and memory not in memories:
            facts.add(int(fact))
            memories.add(int(memory))
    return len(facts)


@dataclass
class Side:
    """One speaker as the user: their gold facts, what the extractor wrote, what a copy would."""

    facts: list[str] = field(default_factory=list)
    extracted: list[str] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)


def session_time(text: str) -> datetime | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" (as reflection gets the turn's time in production)."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


async def read_side(conversation: dict, user: str, extractor: RuleExtractor, cpu: list[float]) -> Side:
    side = Side()
    talk = conversation["conversation"]
    sessions = sorted(
        (int(key.split("_")[1]) for key in talk if re.fullmatch(r"session_\d+", key)),
    )
    window: list[Utterance] = []
    for number in sessions:
        said_at = session_time(talk.get(f"session_{number}_date_time", ""))
        for turn in talk[f"session_{number}"]:
            text = turn.get("text") or ""
            role = "user" if turn["speaker"] == user else "assistant"
            utterance = Utterance(role, text, turn["dia_id"], said_at)
            began = time.process_time()
            found = await extractor.reflect(utterance, window[-WINDOW:])
            cpu.append(time.process_time() - began)
            window.append(utterance)
            if role == "user":
                side.extracted += [memory.content for memory in found.memories]
                side.copied += [third_person(s) for s in _SENTENCE.split(text) if s.strip()]
        observed = conversation["observation"].get(f"session_{number}_observation", {})
        side.facts += [re.sub(rf"\b{re.escape(user)}\b", "the user", fact) for fact, *_ in observed.get(user, [])]
    return side


async def score(embedder: OnnxMiniLmEmbedder, facts: list[str], memories: list[str]) -> Tally:
    references = sum(1 for memory in memories if _REFERENCE.search(memory))
    if not facts or not memories:
        return Tally(len(facts), 0, len(memories), 0, 0, references)
    gold = np.asarray(await embedder.embed(facts))
    found = np.asarray(await embedder.embed(memories))
    similarity = gold @ found.T  # unit vectors: cosine
    return Tally(
        len(facts),
        int((similarity.max(axis=1) >= THRESHOLD).sum()),
        len(memories),
        int((similarity.max(axis=0) >= THRESHOLD).sum()),
        one_to_one(similarity),
        references,
    )


async def run(data: Path, sample: int = 0, seed: int = 37, part_only: str = "", patterns_only: bool = False) -> None:
    conversations = json.loads(data.read_text())
    embedder = OnnxMiniLmEmbedder.load()
    # As the agent service runs it: the packaged model also vouches for facts the patterns missed.
    extractor = RuleExtractor(None if patterns_only else KindReader(embedder))
    cpu: list[float] = []
    totals = {name: {"extractor": Tally(), "copy": Tally()} for name in ("tuning", "held out")}
    held_out_memories: list[str] = []
    for index, conversation in enumerate(conversations):
        part = "tuning" if index in TUNING else "held out"
        if part_only and part != part_only:
            continue
        talk = conversation["conversation"]
        for user in (talk["speaker_a"], talk["speaker_b"]):
            side = await read_side(conversation, user, extractor, cpu)
            extracted = await score(embedder, side.facts, side.extracted)
            copied = await score(embedder, side.facts, side.copied)
            totals[part]["extractor"].add(extracted)
            totals[part]["copy"].add(copied)
            if part == "held out":
                held_out_memories += side.extracted
            print(f"conversation {index} ({part}), {user} as the user: extractor {extracted.line()}")
    for part, tallies in totals.items():
        if part_only and part != part_only:
            continue
        print(f"\n{part} (conversations {'0-2' if part == 'tuning' else '3-5'}):")
        print(f"  extractor      {tallies['extractor'].line()}")
        print(f"  copy baseline  {tallies['copy'].line()}")
    if sample:
        print(f"\n{sample} held-out memories drawn at random (seed {seed}):")
        for memory in random.Random(seed).sample(held_out_memories, min(sample, len(held_out_memories))):
            print(f"  [{'reference' if _REFERENCE.search(memory) else 'stands alone'}] {memory}")
    per_turn = sorted(cpu)
    print(
        f"\nextractor CPU per turn ({len(cpu)} turns): mean {1000 * sum(cpu) / len(cpu):.2f} ms, "
        f"p95 {1000 * per_turn[int(0.95 * (len(per_turn) - 1))]:.2f} ms"
    )


class NoRules:
    """The model extractor's fallback when the model is measured alone: nothing."""

    async def reflect(self, turn: Utterance, earlier: list[Utterance]) -> TurnReflection:
        return TurnReflection()


async def run_model(data: Path, url: str, model_name: str, limit: int, timeout_s: float, max_tokens: int) -> None:
    from agent_svc.adapters.model_extractor import ExtractionPaths, ModelExtractor
    from agent_svc.adapters.openai_chat import open_language_model

    conversations = json.loads(data.read_text())
    embedder = OnnxMiniLmEmbedder.load()
    rules = RuleExtractor()
    client = open_language_model(
        url, os.environ.get("LORE_LLM_API_KEY", ""), model_name, timeout_s, max_tokens=max_tokens
    )
    paths = ExtractionPaths()
    model = ModelExtractor(client, NoRules(), paths=paths)  # type: ignore[arg-type]
    read = {"rules": Side(), "model": Side(), "hybrid": Side()}
    turns, seconds, rules_seconds = 0, 0.0, 0.0
    try:
        for index in (i for i in range(len(conversations)) if i not in TUNING):
            talk = conversations[index]["conversation"]
            user = talk["speaker_a"]
            window: list[Utterance] = []
            for number in sorted(int(k.split("_")[1]) for k in talk if re.fullmatch(r"session_\d+", k)):
                if turns >= limit:
                    break
                said_at = session_time(talk.get(f"session_{number}_date_time", ""))
                heard: set[str] = set()
                for turn in talk[f"session_{number}"]:
                    if turns >= limit:
                        break
                    heard.add(turn["dia_id"])
                    role = "user" if turn["speaker"] == user else "assistant"
                    utterance = Utterance(role, turn.get("text") or "", turn["dia_id"], said_at)
                    began = time.perf_counter()
                    by_rules = await rules.reflect(utterance, window[-WINDOW:])
                    rules_seconds += time.perf_counter() - began
                    fell_back = paths.count(path="fallback")
                    began = time.perf_counter()
                    by_model = await model.reflect(utterance, window[-WINDOW:])
                    seconds += time.perf_counter() - began
                    answered = paths.count(path="fallback") == fell_back
                    hybrid = merge_reflections(by_rules, by_model) if answered else by_rules
                    window.append(utterance)
                    turns += 1
                    if role == "user":
                        for name, found in (("rules", by_rules), ("model", by_model), ("hybrid", hybrid)):
                            read[name].extracted += [memory.content for memory in found.memories]
                observed = conversations[index]["observation"].get(f"session_{number}_observation", {})
                # A session cut by --limit is scored on the gold facts whose evidence was read.
                facts = [
                    re.sub(rf"\b{re.escape(user)}\b", "the user", fact)
                    for fact, *evidence in observed.get(user, [])
                    if heard >= set(re.findall(r"D\d+:\d+", str(evidence)))
                ]
                for side in read.values():
                    side.facts += facts
                print(f"conversation {index} session {number}: {turns} turns read", flush=True)
            if turns >= limit:
                break
    finally:
        await client.aclose()
    print(f"\n{model_name} at {url}, held-out conversations, {turns} turns ({len(read['rules'].facts)} gold facts):")
    for name, side in read.items():
        print(f"  {name:<7}{(await score(embedder, side.facts, side.extracted)).line()}")
    taken = ", ".join(f"{path} {paths.count(path=path)}" for path in ("model", "retried", "partial", "fallback"))
    reasons = ", ".join(f"{reason} {paths.count(reason=reason)}" for reason in ("invalid", "unavailable", "timeout"))
    usage, per = client.usage, max(turns, 1)
    print(f"  model paths: {taken} (fallbacks: {reasons}); response_format {client.format}")
    print(
        f"  per turn: {seconds / per:.2f} s of model time, {usage.calls / per:.2f} calls, "
        f"{usage.prompt_tokens / per:.0f} prompt + {usage.completion_tokens / per:.0f} completion tokens; "
        f"the rules {1000 * rules_seconds / per:.1f} ms, no tokens"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--sample", type=int, default=0, help="print this many held-out memories at random")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument(
        "--model", metavar="URL", help="an OpenAI-compatible server: measure its model next to the rules"
    )
    parser.add_argument("--model-name", default="default", help="the model's name on that server")
    parser.add_argument("--limit", type=int, default=300, help="with --model: held-out turns to read")
    parser.add_argument("--timeout", type=float, default=60.0, help="with --model: seconds per call")
    parser.add_argument("--max-tokens", type=int, default=1024, help="with --model: tokens per answer")
    parser.add_argument(
        "--part", choices=("tuning", "held out"), default="", help="read these conversations only (0-2 or 3-5)"
    )
    parser.add_argument("--patterns-only", action="store_true", help="without the kind reader (domain/rules/kinds.py)")
    args = parser.parse_args()
    if args.model:
        asyncio.run(run_model(args.data, args.model, args.model_name, args.limit, args.timeout, args.max_tokens))
    else:
        asyncio.run(run(args.data, args.sample, args.seed, args.part, args.patterns_only))


if __name__ == "__main__":
    main()
