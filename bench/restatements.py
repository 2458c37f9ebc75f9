"""One fact once on LoCoMo: how many memories reflection would store for each speaker without and
with the memory service's fold of restatements (``memory_svc.domain.restatement``), and how many
stored memories repeat another (the same normalised text, same type) either way.

    nice -n 10 .venv/bin/python -m bench.restatements [--data ../shared/data/locomo-dev.json]

Each conversation is read from each speaker's side, every turn through ``RuleExtractor.reflect``
with the eight turns before it, as ``bench.extraction_quality`` does. "Without" is one memory per
(turn, type, content), as reflection's keys write them; "with" folds each memory into the first kept
one of its type that it restates (the packaged model's cosine, then the rule), as Remember does
within one user's scope. Conversations 0-2 are tuning, 3-5 held out; the data is for measuring only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from collections import Counter
from pathlib import Path

import numpy as np
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules.extractor import RuleExtractor
from lore_embeddings import OnnxMiniLmEmbedder
from memory_svc.domain.restatement import normalised, restates

from bench.extraction_quality import DATA, TUNING, WINDOW, session_time


async def side_memories(conversation: dict, user: str, extractor: RuleExtractor) -> list[tuple[str, str]]:
    """(kind, content) of what reflection learns from ``user``'s turns, one per turn and content."""
    talk = conversation["conversation"]
    sessions = sorted(int(key.split("_")[1]) for key in talk if re.fullmatch(r"session_\d+", key))
    window: list[Utterance] = []
    found: list[tuple[str, str]] = []
    for number in sessions:
        said_at = session_time(talk.get(f"session_{number}_date_time", ""))
        for turn in talk[f"session_{number}"]:
            role = "user" if turn["speaker"] == user else "assistant"
            utterance = Utterance(role, turn.get("text") or "", turn["dia_id"], said_at)
            reflection = await extractor.reflect(utterance, window[-WINDOW:])
            window.append(utterance)
            if role == "user":
                found += list(dict.fromkeys((m.kind, m.content) for m in reflection.memories))
    return found


def repeats(memories: list[tuple[str, str]]) -> int:
    """Stored memories whose type and normalised text another stored one already has."""
    counts = Counter((kind, normalised(content)) for kind, content in memories)
    return sum(count - 1 for count in counts.values())


def fold(memories: list[tuple[str, str]], vectors: np.ndarray) -> tuple[list[tuple[str, str]], float]:
    """What Remember keeps (in order), and the rule's CPU seconds."""
    kept: list[int] = []
    cpu = 0.0
    for position, (kind, content) in enumerate(memories):
        began = time.process_time()
        same = [k for k in kept if memories[k][0] == kind]
        cosines = vectors[same] @ vectors[position] if same else np.zeros(0)
        order = np.argsort(-cosines)[:5]  # the five nearest, as Remember reads them
        if not any(restates(content, memories[same[i]][1], float(cosines[i])) for i in order):
            kept.append(position)
        cpu += time.process_time() - began
    return [memories[k] for k in kept], cpu


async def run(data: Path) -> None:
    conversations = json.loads(data.read_text())
    embedder = OnnxMiniLmEmbedder.load()
    extractor = RuleExtractor()
    totals = {part: Counter() for part in ("tuning", "held out")}
    for index, conversation in enumerate(conversations):
        part = "tuning" if index in TUNING else "held out"
        talk = conversation["conversation"]
        for user in (talk["speaker_a"], talk["speaker_b"]):
            memories = await side_memories(conversation, user, extractor)
            if not memories:
                continue
            vectors = np.asarray(await embedder.embed([content for _, content in memories]))
            kept, cpu = fold(memories, vectors)
            tally = Counter(
                without=len(memories),
                with_fold=len(kept),
                repeats_without=repeats(memories),
                repeats_with=repeats(kept),
                decisions=len(memories),
            )
            totals[part].update(tally)
            totals[part]["cpu_us"] += int(cpu * 1e6)
            print(
                f"conversation {index} ({part}), {user}: {tally['without']} -> {tally['with_fold']} memories; "
                f"repeats {tally['repeats_without']} -> {tally['repeats_with']}"
            )
    for part, tally in totals.items():
        print(
            f"\n{part}: stored {tally['without']} -> {tally['with_fold']} "
            f"({tally['without'] - tally['with_fold']} folded); same-text repeats "
            f"{tally['repeats_without']} -> {tally['repeats_with']}; rule CPU "
            f"{tally['cpu_us'] / max(1, tally['decisions']):.0f} us per memory"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DATA)
    asyncio.run(run(parser.parse_args().data))


if __name__ == "__main__":
    main()
