"""User-profile quality on LoCoMo through the public API: does the profile Lore builds for a speaker
state that speaker's core facts, and are its lines true of them?

    .venv/bin/python -m bench.profile_quality                      # all six conversations, both sides
    .venv/bin/python -m bench.profile_quality --conversations 0,1  # quicker
    [--samples 10] [--json FIGURES.json] [--keep] [--root CHECKOUT | --url URL --api-key KEY]

Starts the stack as the README does (``lore up`` in a temporary data directory, rate limits off;
``--url`` uses a running gateway, whose key needs the ``admin`` scope for the job queue) and talks
to it only through ``lore_client``.

**Import, as a user would, once per speaker.** Each conversation of ../shared/data/locomo-dev.json is
imported twice, as bench.context_quality imports it (StartSession, ImportTurns with the turns' real
times, their speaker names and dia_ids, EndSession, session by session): once with speaker_a's turns
as the user's and speaker_b's as the assistant's, once the other way round, each time for a fresh
user. After the background jobs are done, the profile of each speaker is read:
``GET /v1/users/{userId}/profile?agentId=companion`` (LoreClient.get_user_profile), default budget.

**Gold** (docs/decisions.md, "How the profile is measured", chosen before tuning): a speaker's gold
facts are LoCoMo's ``observation`` facts of that speaker, the name written "the user". Core facts:
the gold facts whose words name a person or relation, a pet, a home, work or studies, health, a
hobby or a plan (``CORE_WORDS`` below), grouped in order (a fact joins the first group whose first
fact is at cosine >= 0.7), a group being core when its facts come from two sessions or more; the
``CORE_GROUPS`` (12) groups said in the most sessions, ties to the earliest.

**Measures**, per speaker and summed per part (0-2 tuning, 3-5 held out):
- *stated*: core groups a profile line states (cosine >= 0.6 to any of the group's facts), each
  group and each line paired once, best pairs first; target >= 50 %;
- *matching*: profile lines paired one-to-one with a gold fact of the speaker (any, cosine >= 0.6);
  target >= 80 %;
- lines and tokens per profile. ``--samples N`` prints N profiles (held-out ones first), line by line
  with the gold fact each matched, for a reader to judge. The data is for measuring only
  (non-commercial licence): nothing of it goes into code or tests.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from lore_client import LoreClient, UserProfile
from lore_embeddings import OnnxMiniLmEmbedder

from bench.context_quality import (
    AGENT,
    DATA,
    Conversation,
    check_done,
    import_conversation,
    read_conversation,
    wait_for_jobs,
)
from bench.local_stack import KEY, ROOT, stack_environment, start, stop

THRESHOLD = 0.6
GROUP_COSINE = 0.7
CORE_GROUPS = 12
TUNING = (0, 1, 2)
CORE_WORDS = re.compile(
    r"\b(?:wife|husband|partner|spouse|girlfriend|boyfriend|fianc\w*|son|sons|daughters?|kids?|children|child|"
    r"baby|mother|mom|mum|father|dad|parents?|sisters?|brothers?|siblings?|grand\w+|aunt|uncle|cousins?|"
    r"friends?|family|married|adopt\w*|dogs?|cats?|pupp\w+|pets?|turtles?|snakes?|horses?|fish|"
    r"lives?|lived|moved|home|house|apartment|hometown|city|country|grew up|from|"
    r"works?|worked|working|jobs?|career|company|business|boss|colleagues?|studies|studying|student|degree|"
    r"school|university|college|teacher|engineer|counsel\w*|volunteer\w*|"
    r"health|injur\w*|ill|illness|sick|surgery|hospital|doctor|therapy|diagnos\w*|"
    r"hobb\w+|passion\w*|loves?|enjoys?|likes?|favou?rite|plays?|paints?|painting|writ\w+|reads?|"
    r"plans?|planning|wants? to|goals?|dreams?|hopes?|aims?|going to|will)\b"
)


@dataclass
class Speaker:
    conversation: int
    name: str
    facts: list[tuple[int, str]]  # (session, fact), the name written "the user"
    core: list[list[str]] = field(default_factory=list)
    profile: UserProfile | None = None
    stated: int = 0
    matching: int = 0
    pairs: list[tuple[str, str, float]] = field(default_factory=list)  # (line, gold fact, cosine)


def gold_facts(sample: dict[str, Any], name: str) -> list[tuple[int, str]]:
    facts = []
    for key, by_speaker in sample["observation"].items():
        session = int(re.search(r"\d+", key).group())
        for fact, *_ in by_speaker.get(name, []):
            facts.append((session, re.sub(rf"\b{re.escape(name)}\b", "the user", str(fact))))
    return sorted(facts, key=lambda item: item[0])


def core_groups(facts: list[tuple[int, str]], vectors: np.ndarray) -> list[list[str]]:
    """The rule of docs/decisions.md: topical facts grouped in order at cosine >= GROUP_COSINE, the
    groups said in two sessions or more, the CORE_GROUPS said in the most sessions."""
    groups: list[tuple[int, list[int]]] = []  # (first fact's index, members)
    for index, (_, text) in enumerate(facts):
        if not CORE_WORDS.search(text.lower()):
            continue
        for first, members in groups:
            if float(vectors[first] @ vectors[index]) >= GROUP_COSINE:
                members.append(index)
                break
        else:
            groups.append((index, [index]))
    spans = [(len({facts[i][0] for i in members}), first, members) for first, members in groups]
    core = sorted((span for span in spans if span[0] >= 2), key=lambda span: (-span[0], span[1]))[:CORE_GROUPS]
    return [[facts[i][1] for i in members] for _, _, members in core]


def one_to_one(similarity: np.ndarray) -> list[tuple[int, int, float]]:
    """(row, column, cosine) pairs at >= THRESHOLD, each row and column used once, best first."""
    pairs = np.argwhere(similarity >= THRESHOLD)
    order = np.argsort(-similarity[pairs[:, 0], pairs[:, 1]], kind="stable")
    rows, columns, kept = set(), set(), []
    for row, column in pairs[order]:
        if row not in rows and column not in columns:
            rows.add(int(row))
            columns.add(int(column))
            kept.append((int(row), int(column), float(similarity[row, column])))
    return kept


async def score(speaker: Speaker, embedder: OnnxMiniLmEmbedder) -> None:
    lines = [line.text for line in speaker.profile.lines] if speaker.profile else []
    if not lines:
        return
    line_vectors = np.asarray(await embedder.embed(lines))
    fact_vectors = np.asarray(await embedder.embed([text for _, text in speaker.facts]))
    if speaker.core:
        # A line states a group when it is close enough to any fact of it: the group's best cosine.
        by_group = []
        for group in speaker.core:
            vectors = np.asarray(await embedder.embed(group))
            by_group.append((vectors @ line_vectors.T).max(axis=0))
        speaker.stated = len(one_to_one(np.asarray(by_group)))
    matched = one_to_one(line_vectors @ fact_vectors.T)
    speaker.matching = len(matched)
    speaker.pairs = [(lines[row], speaker.facts[column][1], cosine) for row, column, cosine in matched]
    unmatched = set(range(len(lines))) - {row for row, _, _ in matched}
    speaker.pairs += [(lines[row], "", 0.0) for row in sorted(unmatched)]


def flipped(conversation: Conversation, run_id: str) -> Conversation:
    """The same conversation with the other speaker as the user, for a user of its own."""
    sessions = [
        (number, [dataclasses.replace(turn, role="assistant" if turn.role == "user" else "user") for turn in turns])
        for number, turns in conversation.sessions
    ]
    return Conversation(conversation.index, conversation.sample_id, f"{conversation.user_id}-b", sessions, [])


def part_line(name: str, speakers: list[Speaker]) -> str:
    core = sum(len(s.core) for s in speakers)
    stated = sum(s.stated for s in speakers)
    lines = sum(len(s.profile.lines) if s.profile else 0 for s in speakers)
    matching = sum(s.matching for s in speakers)
    tokens = [s.profile.tokens if s.profile else 0 for s in speakers]
    return (
        f"{name}: stated {stated / core if core else 0:.3f} ({stated}/{core} core facts), "
        f"matching {matching / lines if lines else 0:.3f} ({matching}/{lines} lines); "
        f"{lines / max(1, len(speakers)):.1f} lines and {sum(tokens) / max(1, len(tokens)):.0f} tokens per profile, "
        f"{len(speakers)} speakers"
    )


async def run(args: argparse.Namespace, url: str, api_key: str) -> dict[str, Any]:
    samples = json.loads(Path(args.data).read_text())
    picked = [int(part) for part in args.conversations.split(",")] if args.conversations else range(len(samples))
    run_id = secrets.token_hex(3)
    embedder = OnnxMiniLmEmbedder.load()
    speakers: list[Speaker] = []
    async with LoreClient(url, api_key, timeout=60, max_retries=3) as lore:
        for index in picked:
            sample = samples[index]
            first = read_conversation(index, sample, run_id, 0)
            talk = sample["conversation"]
            for conversation, name in ((first, talk["speaker_a"]), (flipped(first, run_id), talk["speaker_b"])):
                seconds = await import_conversation(lore, conversation)
                waited = await wait_for_jobs(lore, args.job_timeout)
                await check_done(lore, conversation)
                speaker = Speaker(index, name, gold_facts(sample, name))
                vectors = np.asarray(await embedder.embed([text for _, text in speaker.facts]))
                speaker.core = core_groups(speaker.facts, vectors)
                speaker.profile = await lore.get_user_profile(conversation.user_id, agent_id=AGENT)
                await score(speaker, embedder)
                speakers.append(speaker)
                print(
                    f"conversation {index}, {name} as the user: imported in {seconds:.0f} s, jobs done {waited:.0f} s "
                    f"later; {len(speaker.profile.lines)} profile lines, {speaker.stated}/{len(speaker.core)} core "
                    f"facts stated, {speaker.matching} lines matching",
                    flush=True,
                )
    parts = {
        "tuning (conversations 0-2)": [s for s in speakers if s.conversation in TUNING],
        "held out (conversations 3-5)": [s for s in speakers if s.conversation not in TUNING],
    }
    print()
    figures: dict[str, Any] = {}
    for name, members in parts.items():
        if members:
            print(part_line(name, members))
            core = sum(len(s.core) for s in members)
            lines = sum(len(s.profile.lines) for s in members if s.profile)
            figures[name] = {
                "stated": round(sum(s.stated for s in members) / core, 3) if core else 0.0,
                "matching": round(sum(s.matching for s in members) / lines, 3) if lines else 0.0,
                "core_facts": core,
                "lines": lines,
            }
    shown = sorted(speakers, key=lambda s: (s.conversation in TUNING, s.conversation, s.name))[: args.samples]
    for speaker in shown:
        print(f"\n-- conversation {speaker.conversation}, {speaker.name} ({speaker.stated}/{len(speaker.core)} stated)")
        for line, fact, cosine in speaker.pairs:
            print(f"   {line}\n      -> {f'{cosine:.2f} {fact}' if fact else 'no gold fact'}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--conversations", default="", help="indices in the file, e.g. 0,1 (default: all)")
    parser.add_argument("--samples", type=int, default=10, help="profiles to print, held-out ones first")
    parser.add_argument("--url", default="", help="a running gateway instead of a stack of our own")
    parser.add_argument("--api-key", default=os.environ.get("LORE_API_KEY", ""), help="with --url (admin scope)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lore up` to run")
    parser.add_argument("--job-timeout", type=float, default=7200, help="seconds to wait for background jobs")
    parser.add_argument("--keep", action="store_true", help="keep the stack's data directory (its logs)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    command = " ".join([".venv/bin/python -m bench.profile_quality", *sys.argv[1:]])
    began = time.monotonic()
    if args.url:
        figures = asyncio.run(run(args, args.url, args.api_key))
    else:
        directory = Path(tempfile.mkdtemp(prefix="lore-bench-profile-"))
        data_dir = directory / "data"
        env, url = stack_environment(data_dir, KEY, LORE_RATE_LIMIT="0")
        process, ready = start(data_dir, env, url, root=args.root)
        print(f"lore up ({args.root}) ready in {ready:.1f} s; data in {directory}", flush=True)
        try:
            figures = asyncio.run(run(args, url, KEY))
        finally:
            stop(process)
            if args.keep:
                print(f"kept {directory} (logs in {data_dir / 'logs'})")
            else:
                shutil.rmtree(directory, ignore_errors=True)
    total = time.monotonic() - began
    print(f"\ncommand: {command}\nwall time: {total:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "wall_s": round(total, 1), **figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
