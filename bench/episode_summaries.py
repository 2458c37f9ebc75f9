"""Episode summaries against LoCoMo's gold session summaries, next to a lead baseline.

    .venv/bin/python bench/episode_summaries.py [--data ../shared/data/locomo-dev.json]

Every session of every conversation goes through the agent's episode summary
(``usecases.episodes.summarise_conversation``: the covering sentences, rules/central.py) with the
packaged embedding model; the conversation's first speaker is the user, the second the assistant.
The **lead** baseline is the first sentences of two content words or more (questions too), rendered alike
("User: … Assistant: …"), cut at the same number of characters as our summary. Both are scored
against the gold ``session_summary``: cosine with the packaged model, and ROUGE-L F1 (word LCS,
lower case). "wins" is the share of sessions where ours has the higher cosine. Conversations
0-2 were used to tune (the objective, POSITION_WEIGHT, the sentence filter); 3-5 are held out.
CPU is the process time of one summary (embedding included), per session.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import time
from pathlib import Path

import numpy as np
from agent_svc.domain.rules.central import MIN_CONTENT_WORDS, conversation_sentences, render
from agent_svc.domain.rules.text import content_words
from agent_svc.usecases.episodes import summarise_conversation
from lore_embeddings import OnnxMiniLmEmbedder

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
PARTS = {"tuning (0-2)": range(0, 3), "held out (3-5)": range(3, 6)}
_WORD = re.compile(r"[a-z0-9']+")


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 over lower-case word tokens (longest common subsequence)."""
    a, b = _WORD.findall(candidate.lower()), _WORD.findall(reference.lower())
    if not a or not b:
        return 0.0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    lcs = previous[-1]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(a), lcs / len(b)
    return 2 * precision * recall / (precision + recall)


def lead(turns: list[tuple[str, str]], chars: int) -> str:
    """The first sentences, same rendering, cut at ``chars`` characters (at a word boundary)."""
    said = [s for s in conversation_sentences(turns) if len(content_words(s.text)) >= MIN_CONTENT_WORDS]
    text = render(said[:50])
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0]


def sessions(conversation: dict) -> list[tuple[str, list[tuple[str, str]], str]]:
    talk = conversation["conversation"]
    user = talk["speaker_a"]
    found = []
    for n in range(1, 100):
        key = f"session_{n}"
        gold = conversation["session_summary"].get(f"{key}_summary")
        if key not in talk or not gold:
            continue
        turns = [("user" if t["speaker"] == user else "assistant", t["text"]) for t in talk[key]]
        found.append((key, turns, gold))
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    embedder = OnnxMiniLmEmbedder.load()
    await embedder.embed(["warm up"])
    print(
        "part            sessions  cos ours  cos lead  Δcos   wins   ROUGE-L ours  ROUGE-L lead  chars  CPU ms/episode"
    )
    try:
        for part, indices in PARTS.items():
            rows = []
            for index in indices:
                for _, turns, gold in sessions(data[index]):
                    started = time.process_time()
                    ours = await summarise_conversation(turns, embedder)
                    cpu = time.process_time() - started
                    baseline = lead(turns, len(ours))
                    vectors = await embedder.embed([ours, baseline, gold])
                    cos_ours, cos_lead = float(vectors[0] @ vectors[2]), float(vectors[1] @ vectors[2])
                    rows.append((cos_ours, cos_lead, rouge_l(ours, gold), rouge_l(baseline, gold), len(ours), cpu))
            table = np.array(rows)
            means = table.mean(axis=0)
            wins = float(np.mean(table[:, 0] > table[:, 1]))
            print(
                f"{part:<15} {len(rows):>8}  {means[0]:8.3f}  {means[1]:8.3f}  {means[0] - means[1]:+.3f}  "
                f"{wins:5.0%}  {means[2]:12.3f}  {means[3]:12.3f}  {means[4]:5.0f}  "
                f"{1000 * statistics.median(table[:, 5]):6.1f} (median), {1000 * table[:, 5].max():.0f} (max)"
            )
    finally:
        await embedder.aclose()


if __name__ == "__main__":
    asyncio.run(main())
