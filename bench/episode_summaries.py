"""Episode summaries against LoCoMo's gold session summaries, next to a lead baseline.

    .venv/bin/python bench/episode_summaries.py [--data ../shared/data/locomo-dev.json]

Every session of every conversation goes through the agent's episode summary
(``usecases.episodes.summarise_conversation``: likeness + coverage, rules/central.py) with the
packaged embedding model; the conversation's first speaker is the user, the second the assistant.
The **lead** baseline is the first sentences of two content words or more (questions too), rendered alike
("User: … Assistant: …"), cut at the same number of characters as our summary. Both are scored
against the gold ``session_summary``: cosine with the packaged model, and ROUGE-L F1 (word LCS,
lower case). "wins" is the share of sessions where ours has the higher cosine. Conversations
0-2 were used to tune (the objective, its weights, the sentence filter); 3-5 are held out.

The gold is scored twice: **as written**, naming both speakers ("Caroline mentioned that she..."),
and with the speakers written as "the user" and "the assistant" — how the issue scores extracted
facts, and the only names a summary of a Lore session can use: its sentences are printed under
"User:" and "Assistant:", and no summary of ours or the lead's can name a speaker the conversation
does not. The target (≥ +0.05 cosine, better in ≥ 70 % of sessions) is judged on the second.
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


def as_roles(gold: str, user: str, assistant: str) -> str:
    """``gold`` with the speakers' names written as "the user" and "the assistant"."""
    for name, role in ((user, "the user"), (assistant, "the assistant")):
        gold = re.sub(rf"\b{re.escape(name)}\b", role, gold)
    return re.sub(r"(^|[.!?] )the ", lambda match: match.group(1) + "The ", gold)


def sessions(conversation: dict) -> list[tuple[str, list[tuple[str, str]], str, str]]:
    """(key, turns, gold as written, gold with the speakers as roles) per summarised session."""
    talk = conversation["conversation"]
    user = talk["speaker_a"]
    found = []
    for n in range(1, 100):
        key = f"session_{n}"
        gold = conversation["session_summary"].get(f"{key}_summary")
        if key not in talk or not gold:
            continue
        turns = [("user" if t["speaker"] == user else "assistant", t["text"]) for t in talk[key]]
        found.append((key, turns, gold, as_roles(gold, user, talk["speaker_b"])))
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    embedder = OnnxMiniLmEmbedder.load()
    await embedder.embed(["warm up"])
    header = "part            sessions  cos ours  cos lead  Δcos   wins   ROUGE-L ours  ROUGE-L lead  chars"
    rows: dict[str, dict[str, list]] = {"as written": {}, "speakers as user/assistant": {}}
    cpu: list[float] = []
    try:
        for part, indices in PARTS.items():
            for table in rows.values():
                table[part] = []
            for index in indices:
                for _, turns, *golds in sessions(data[index]):
                    started = time.process_time()
                    ours = await summarise_conversation(turns, embedder)
                    cpu.append(time.process_time() - started)
                    baseline = lead(turns, len(ours))
                    vectors = await embedder.embed([ours, baseline, *golds])
                    for gold, vector, table in zip(golds, vectors[2:], rows.values(), strict=True):
                        table[part].append(
                            (
                                float(vectors[0] @ vector),
                                float(vectors[1] @ vector),
                                rouge_l(ours, gold),
                                rouge_l(baseline, gold),
                                len(ours),
                            )
                        )
        for gold, table in rows.items():
            print(f"gold summaries {gold}\n{header}")
            for part, scores in table.items():
                values = np.array(scores)
                means = values.mean(axis=0)
                wins = float(np.mean(values[:, 0] > values[:, 1]))
                print(
                    f"{part:<15} {len(values):>8}  {means[0]:8.3f}  {means[1]:8.3f}  {means[0] - means[1]:+.3f}  "
                    f"{wins:5.0%}  {means[2]:12.3f}  {means[3]:12.3f}  {means[4]:5.0f}"
                )
        print(
            f"CPU per episode summary (embedding included): {1000 * statistics.median(cpu):.0f} ms median, "
            f"{1000 * max(cpu):.0f} ms max"
        )
    finally:
        await embedder.aclose()


if __name__ == "__main__":
    asyncio.run(main())
