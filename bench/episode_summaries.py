"""Episode summaries against LoCoMo's gold session summaries, next to a first-three-turns baseline.

    .venv/bin/python bench/episode_summaries.py [--data ../shared/data/locomo-dev.json] [--part tuning]

Every session of every conversation goes through the agent's episode summary
(``usecases.episodes.summarise_conversation``: the sentences that best cover the conversation,
rules/central.py, told in the third person, rules/narration.py) with the packaged embedding model;
the conversation's first speaker is the user, the second the assistant. It is scored twice:

- **speakers named**: the turns carry the speakers' names, as an import with speakers does, and
  the summary is scored against the gold ``session_summary`` as written ("Caroline mentioned...");
- **speakers as roles**: the turns carry no names, as an agent's own session, and the gold is
  scored with the names written as "the user" and "the assistant".

The **lead** baseline is the session's first three turns as said, each after its speaker
("Caroline: … Melanie: …", or "User: …" without names): what a pasted transcript gives. Scores:
cosine with the packaged model, and ROUGE-L F1 (word LCS, lower case); "wins" is the share of
sessions where ours has the higher cosine; "pasted" counts summaries holding "User:" or
"Assistant:" (must be 0). Conversations 0-2 tune, 3-5 are held out. CPU is the process time of
one summary (embedding included), per session.
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
from agent_svc.usecases.episodes import summarise_conversation
from lore_embeddings import OnnxMiniLmEmbedder

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
PARTS = {"tuning (0-2)": range(0, 3), "held out (3-5)": range(3, 6)}
LEAD_TURNS = 3
_WORD = re.compile(r"[a-z0-9']+")
_PASTED = re.compile(r"\b(?:User|Assistant):")


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


def lead(turns: list[tuple[str, str]], names: dict[str, str]) -> str:
    """The first three turns as said, each after its speaker."""
    labels = names or {"user": "User", "assistant": "Assistant"}
    return " ".join(f"{labels[role]}: {text}" for role, text in turns[:LEAD_TURNS])


def as_roles(gold: str, user: str, assistant: str) -> str:
    """``gold`` with the speakers' names written as "the user" and "the assistant"."""
    for name, role in ((user, "the user"), (assistant, "the assistant")):
        gold = re.sub(rf"\b{re.escape(name)}\b", role, gold)
    return re.sub(r"(^|[.!?] )the ", lambda match: match.group(1) + "The ", gold)


def sessions(conversation: dict) -> list[tuple[list[tuple[str, str]], dict[str, str], str, str]]:
    """(turns, the speakers' names by role, gold as written, gold with the speakers as roles)."""
    talk = conversation["conversation"]
    user, assistant = talk["speaker_a"], talk["speaker_b"]
    found = []
    for n in range(1, 100):
        key = f"session_{n}"
        gold = conversation["session_summary"].get(f"{key}_summary")
        if key not in talk or not gold:
            continue
        turns = [("user" if t["speaker"] == user else "assistant", t["text"]) for t in talk[key]]
        found.append((turns, {"user": user, "assistant": assistant}, gold, as_roles(gold, user, assistant)))
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--part", choices=["tuning", "held", "both"], default="both")
    parser.add_argument("--samples", type=int, default=0, help="print this many summaries of the tuning part")
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    parts = {k: v for k, v in PARTS.items() if args.part == "both" or k.startswith(args.part)}
    embedder = OnnxMiniLmEmbedder.load()
    await embedder.embed(["warm up"])
    header = "part            sessions  cos ours  cos lead  Δcos   wins   ROUGE-L ours  ROUGE-L lead  chars  pasted"
    tables: dict[str, dict[str, list]] = {"speakers named": {}, "speakers as roles": {}}
    pasted: dict[str, dict[str, int]] = {table: {} for table in tables}
    cpu: list[float] = []
    shown = 0
    try:
        for part, indices in parts.items():
            for table in tables:
                tables[table][part] = []
                pasted[table][part] = 0
            for index in indices:
                for turns, names, gold, gold_roles in sessions(data[index]):
                    for table, speakers, reference in (
                        ("speakers named", names, gold),
                        ("speakers as roles", {}, gold_roles),
                    ):
                        started = time.process_time()
                        ours = await summarise_conversation(turns, embedder, names=speakers)
                        cpu.append(time.process_time() - started)
                        baseline = lead(turns, speakers)
                        if shown < args.samples and part.startswith("tuning") and speakers:
                            print(f"--- ours\n{ours}\n--- gold\n{reference}\n")
                            shown += 1
                        pasted[table][part] += bool(_PASTED.search(ours))
                        vectors = await embedder.embed([ours, baseline, reference])
                        tables[table][part].append(
                            (
                                float(vectors[0] @ vectors[2]),
                                float(vectors[1] @ vectors[2]),
                                rouge_l(ours, reference),
                                rouge_l(baseline, reference),
                                len(ours),
                            )
                        )
        for table, rows in tables.items():
            print(f"{table}\n{header}")
            for part, scores in rows.items():
                values = np.array(scores)
                means = values.mean(axis=0)
                wins = float(np.mean(values[:, 0] > values[:, 1]))
                print(
                    f"{part:<15} {len(values):>8}  {means[0]:8.3f}  {means[1]:8.3f}  {means[0] - means[1]:+.3f}  "
                    f"{wins:5.0%}  {means[2]:12.3f}  {means[3]:12.3f}  {means[4]:5.0f}  {pasted[table][part]:6d}"
                )
        print(
            f"CPU per episode summary (embedding included): {1000 * statistics.median(cpu):.0f} ms median, "
            f"{1000 * max(cpu):.0f} ms max"
        )
    finally:
        await embedder.aclose()


if __name__ == "__main__":
    asyncio.run(main())
