"""The paraphrase and trap suites (tests/data/paraphrase): what Lore stores from a user's first words,
measured through the public API.

    nice -n 19 .venv/bin/python -m bench.paraphrase [--half held_out|tuning|both] [--concurrency 4]
        [--url http://127.0.0.1:8080 --api-key KEY] [--show-misses] [--json figures.json] [--ids REGEX]
        [--model URL --model-name NAME [--max-tokens N]]

Each phrasing and each trap is a fresh user's session (``lore_client``, as an application would):
StartSession, the ``previous_turn`` when it has one, then the sentence (ProcessTurn, REST); the
benchmark waits until reflection has read both turns (the session's ``reflectedTurns``, polled), then
lists everything stored for that user: every memory of the session's scope (ListMemories, every
status) and every belief of the user (QueryObservations by user). Nothing is read from the extractor.

- A phrasing's fact is **learnt** when a current memory the turns produced (any type but the raw
  ``message``) or a current belief in the user's scope matches its pattern and neither its
  ``not_pattern`` nor the chatter of ``kinds.json``. Facts said in the same breath (``also``) are
  scored under their own kinds, apart.
- **Wrong slot**: a current belief about the user (its subject is the user) whose summary matches
  the pattern and whose slot the kind's ``slot`` expression refuses.
- A trap is **stored as the user's fact** when one of its ``must_not`` items is met (README.md);
  for the ``secret`` class, also when its value, separators removed, occurs in any memory, belief,
  evidence excerpt or the ProcessTurn answer's context, separators removed.

The held-out half is reported per kind and per class only; what it misses is printed with
``--show-held-out-misses`` alone, for the closing audit (tests/data/paraphrase/README.md: the
held-out half is never tuned on). ``--show-misses`` prints the tuning half's misses.

Without ``--url`` it starts a stack of its own in a temporary directory (bench.local_stack, rate
limits off) and stops it at the end; ``--model URL`` gives that stack an OpenAI-compatible language
model (``LORE_LLM_BASE_URL``), so the same cases measure the hybrid reflection (the rules where sure,
the model's additions) next to a run without it (``docs/language-model.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore_client import LoreClient
from lore_client.models import Memory, Observation

from bench.local_stack import KEY, ROOT, stack_environment, start, stop

SUITE = ROOT / "tests" / "data" / "paraphrase"
HALVES = ("held_out", "tuning")
AGENT = "paraphrase-bench"
TARGET = 0.9
REFLECTION_TIMEOUT_S = 180.0
POLL_S = 0.3
_I = re.IGNORECASE
_CURRENT_MEMORY = {"MEMORY_STATUS_ACTIVE", "MEMORY_STATUS_WARM"}
_CURRENT_BELIEF = {"OBSERVATION_STATUS_ACTIVE", "OBSERVATION_STATUS_STALE"}


@dataclass(frozen=True)
class Kind:
    id: str
    memory_type: str
    slot: re.Pattern[str] | None


@dataclass(frozen=True)
class Expectation:
    kind: str
    pattern: re.Pattern[str]
    not_pattern: re.Pattern[str] | None
    primary: bool  # the phrasing's own kind (counted against the target), not one said in the same breath


@dataclass(frozen=True)
class Rule:
    """A ``must_not`` or ``instead`` item."""

    pattern: re.Pattern[str] | None
    slot: re.Pattern[str] | None
    anywhere: bool


@dataclass(frozen=True)
class Case:
    id: str
    half: str
    text: str
    role: str
    previous: tuple[str, str] | None
    expectations: tuple[Expectation, ...] = ()
    trap_class: str = ""
    must_not: tuple[Rule, ...] = ()
    instead: tuple[Rule, ...] = ()
    secret: str = ""


@dataclass
class Stored:
    """What the stack holds for one case's user afterwards."""

    memories: list[Memory] = field(default_factory=list)
    beliefs: list[Observation] = field(default_factory=list)
    answer: str = ""  # the ProcessTurn answer's context text
    user_id: str = ""

    def facts(self) -> list[str]:
        """Current memories the turns produced (the raw messages left out), as text."""
        return [
            memory.content
            for memory in self.memories
            if memory.memory_type != "MEMORY_TYPE_MESSAGE" and memory.status in _CURRENT_MEMORY
        ]

    def everything(self) -> list[str]:
        """Every memory of any type and status, every belief and its evidence, the answer."""
        texts = [memory.content for memory in self.memories] + [self.answer]
        for belief in self.beliefs:
            texts += [belief.summary, belief.detail, *(line.excerpt for line in belief.evidence)]
        return texts

    def current_beliefs(self) -> list[Observation]:
        return [belief for belief in self.beliefs if belief.status in _CURRENT_BELIEF]

    def about_user(self, belief: Observation) -> bool:
        return belief.subject_type == "SUBJECT_TYPE_ENTITY" and belief.subject_id == self.user_id

    def lines(self) -> list[str]:
        """What was stored, for the misses printed with ``--show-misses``."""
        out = [f"memory {m.memory_type.removeprefix('MEMORY_TYPE_').lower()}: {m.content}" for m in self.memories]
        out += [
            f"belief {b.slot} ({b.status.removeprefix('OBSERVATION_STATUS_').lower()}): {b.summary}"
            for b in self.beliefs
        ]
        return out


def load_suite(halves: tuple[str, ...]) -> tuple[dict[str, Kind], re.Pattern[str], list[Case]]:
    kinds_doc = json.loads((SUITE / "kinds.json").read_text(encoding="utf-8"))
    kinds = {
        kind["id"]: Kind(kind["id"], kind["memory_type"], re.compile(kind["slot"]) if kind["slot"] else None)
        for kind in kinds_doc["kinds"]
    }
    chatter = re.compile(kinds_doc["chatter"], _I)
    cases: list[Case] = []
    for half in halves:
        for group in json.loads((SUITE / f"{half}.json").read_text(encoding="utf-8"))["kinds"]:
            for phrasing in group["phrasings"]:
                expected = [Expectation(group["kind"], *_patterns(phrasing), primary=True)]
                expected += [
                    Expectation(also["kind"], *_patterns(also), primary=False) for also in phrasing.get("also", [])
                ]
                role = phrasing.get("role", "user")
                cases.append(Case(phrasing["id"], half, phrasing["text"], role, _previous(phrasing), tuple(expected)))
        for trap in json.loads((SUITE / f"traps_{half}.json").read_text(encoding="utf-8"))["traps"]:
            cases.append(
                Case(
                    trap["id"],
                    half,
                    trap["text"],
                    trap.get("role", "user"),
                    _previous(trap),
                    trap_class=trap["class"],
                    must_not=tuple(_rule(item) for item in trap["must_not"]),
                    instead=tuple(_rule(item) for item in trap.get("instead", [])),
                    secret=trap.get("secret", {}).get("value", ""),
                )
            )
    return kinds, chatter, cases


def _patterns(item: dict[str, Any]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    return re.compile(item["pattern"], _I), re.compile(item["not_pattern"], _I) if item.get("not_pattern") else None


def _previous(item: dict[str, Any]) -> tuple[str, str] | None:
    turn = item.get("previous_turn")
    return (turn["role"], turn["text"]) if turn else None


def _rule(item: dict[str, Any]) -> Rule:
    return Rule(
        re.compile(item["pattern"], _I) if "pattern" in item else None,
        re.compile(item["slot"]) if "slot" in item else None,
        item.get("where", "facts") == "anywhere",
    )


async def run_case(lore: LoreClient, case: Case, run: str) -> Stored:
    user_id = f"para-{run}-{case.id}"
    scope = {"userId": user_id, "agentId": AGENT}
    session = await lore.start_session(scope)
    if case.previous is not None:
        await lore.process_turn(session.id, case.previous[1], role=case.previous[0], turn_idempotency_key="before")
    result = await lore.process_turn(session.id, case.text, role=case.role, turn_idempotency_key="said")
    deadline = time.monotonic() + REFLECTION_TIMEOUT_S
    while True:
        state = await lore.get_session(session.id)
        if state.reflected_turns >= state.turn_count:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"{case.id}: reflection read {state.reflected_turns} of {state.turn_count} turns")
        await asyncio.sleep(POLL_S)
    memories = [memory async for memory in lore.iter_memories(scope, page_size=200)]
    beliefs: list[Observation] = []
    token = ""
    while True:
        page = await lore.query_observations(user_id=user_id, page_size=100, page_token=token)
        beliefs += page.items
        token = page.next_page_token
        if not token:
            break
    return Stored(memories, beliefs, result.context.text if result.context else "", user_id)


@dataclass
class KindTally:
    phrasings: int = 0
    learnt: int = 0
    as_belief: int = 0
    as_type: int = 0  # learnt as a memory of the kind's expected type
    wrong_slot: int = 0
    chatter: int = 0  # the fact was there, with the chatter around it
    also: int = 0
    also_learnt: int = 0


def score_phrasing(
    case: Case, stored: Stored, kinds: dict[str, Kind], chatter: re.Pattern[str], tallies: dict[str, KindTally]
) -> list[str]:
    """Adds the case to ``tallies``; returns what it missed (one line per missed or wrong expectation)."""
    missed: list[str] = []
    facts = stored.facts()
    beliefs = stored.current_beliefs()
    for expected in case.expectations:
        kind = kinds[expected.kind]
        tally = tallies[expected.kind]

        def right(text: str, expected: Expectation = expected) -> bool:
            if not expected.pattern.search(text) or chatter.search(text):
                return False
            return not (expected.not_pattern and expected.not_pattern.search(text))

        learnt_memories = [text for text in facts if right(text)]
        learnt_beliefs = [belief for belief in beliefs if right(belief.summary)]
        learnt = bool(learnt_memories or learnt_beliefs)
        wrong = [
            belief
            for belief in beliefs
            if stored.about_user(belief)
            and expected.pattern.search(belief.summary)
            and kind.slot is not None
            and not kind.slot.search(belief.slot)
        ]
        if expected.primary:
            tally.phrasings += 1
            tally.learnt += learnt
            tally.as_belief += bool(learnt_beliefs)
            tally.as_type += any(
                right(m.content) and m.memory_type == f"MEMORY_TYPE_{kind.memory_type.upper()}"
                for m in stored.memories
                if m.status in _CURRENT_MEMORY
            )
            tally.chatter += not learnt and any(expected.pattern.search(t) and chatter.search(t) for t in facts)
        else:
            tally.also += 1
            tally.also_learnt += learnt
        tally.wrong_slot += len(wrong)
        if not learnt:
            missed.append(f"{expected.kind}: not learnt ({expected.pattern.pattern})")
        missed += [f"{expected.kind}: wrong slot {belief.slot!r}: {belief.summary}" for belief in wrong]
    return missed


def _normalised(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def score_trap(case: Case, stored: Stored) -> tuple[list[str], bool | None]:
    """The ways the trap was stored as the user's fact, and whether what should be stored instead
    was (``None`` when the trap names nothing)."""
    facts, everything = stored.facts(), stored.everything()
    beliefs = stored.current_beliefs()
    about_user = [belief for belief in beliefs if stored.about_user(belief)]
    broken: list[str] = []
    for rule in case.must_not:
        texts = everything if rule.anywhere else facts
        if rule.pattern is not None:
            broken += [f"memory: {text}" for text in texts if rule.pattern.search(text)]
        broken += [
            f"belief {belief.slot}: {belief.summary}"
            for belief in about_user
            if (rule.slot is None or rule.slot.search(belief.slot))
            and (rule.pattern is None or rule.pattern.search(belief.summary))
            and (rule.slot is not None or rule.pattern is not None)
        ]
    if case.secret and _normalised(case.secret) in _normalised(" ".join(everything)):
        broken.append(f"the raw value {case.secret!r} is stored")
    kept: bool | None = None
    if case.instead:
        kept = all(
            any(rule.pattern is None or rule.pattern.search(text) for text in (everything if rule.anywhere else facts))
            or any(rule.pattern is not None and rule.pattern.search(belief.summary) for belief in beliefs)
            for rule in case.instead
        )
    return sorted(set(broken)), kept


async def measure(url: str, api_key: str, cases: list[Case], concurrency: int) -> dict[str, Stored]:
    run = uuid.uuid4().hex[:8]
    gate = asyncio.Semaphore(concurrency)
    stored: dict[str, Stored] = {}
    began = time.monotonic()

    async with LoreClient(url, api_key, timeout=60, max_retries=2) as lore:

        async def one(case: Case) -> None:
            async with gate:
                stored[case.id] = await run_case(lore, case, run)
                if len(stored) % 50 == 0:
                    print(f"  … {len(stored)}/{len(cases)} ({time.monotonic() - began:.0f} s)", file=sys.stderr)

        await asyncio.gather(*(one(case) for case in cases))
    return stored


def report(
    half: str,
    kinds: dict[str, Kind],
    chatter: re.Pattern[str],
    cases: list[Case],
    stored: dict[str, Stored],
    show_misses: bool,
) -> dict[str, Any]:
    tallies: dict[str, KindTally] = defaultdict(KindTally)
    misses: list[tuple[Case, list[str]]] = []
    trap_hits: Counter[str] = Counter()
    trap_counts: Counter[str] = Counter()
    kept, named = 0, 0
    trap_misses: list[tuple[Case, list[str]]] = []
    for case in cases:
        if case.half != half:
            continue
        if case.expectations:
            missed = score_phrasing(case, stored[case.id], kinds, chatter, tallies)
            if missed:
                misses.append((case, missed))
        else:
            broken, instead = score_trap(case, stored[case.id])
            trap_counts[case.trap_class] += 1
            trap_hits[case.trap_class] += bool(broken)
            if instead is not None:
                named += 1
                kept += instead
            if broken or instead is False:
                trap_misses.append((case, broken + ([] if instead is not False else ["instead: not stored"])))

    phrasings = sum(t.phrasings for t in tallies.values())
    learnt = sum(t.learnt for t in tallies.values())
    meeting = [
        kind for kind in kinds if tallies[kind].phrasings and tallies[kind].learnt / tallies[kind].phrasings >= TARGET
    ]
    wrong_slot = sum(t.wrong_slot for t in tallies.values())
    traps = sum(trap_counts.values())
    fact_classes = [c for c in trap_counts if c not in ("secret", "not_secret")]
    stored_as_fact = sum(trap_hits[c] for c in fact_classes)

    print(f"\n== {half.replace('_', '-')} half: {phrasings} phrasings over {len(tallies)} kinds, {traps} traps ==")
    print(
        f"learnt {learnt}/{phrasings} ({learnt / max(phrasings, 1):.0%}); kinds learnt in >= {TARGET:.0%} of their "
        f"phrasings: {len(meeting)}/{len(kinds)}; wrong slot: {wrong_slot}"
    )
    header = ("learnt", 9), ("as belief", 9), ("as type", 8), ("chatter", 8), ("wrong slot", 10), ("same breath", 11)
    print(f"{'kind':<20} " + " ".join(f"{name:>{width}}" for name, width in header))
    for kind in kinds:
        t = tallies[kind]
        also = f"{t.also_learnt}/{t.also}" if t.also else ""
        print(
            f"{kind:<20} {t.learnt:>4}/{t.phrasings:<4} {t.as_belief:>9} {t.as_type:>8} {t.chatter:>8} "
            f"{t.wrong_slot:>10} {also:>11}"
        )
    print(f"traps stored as the user's fact: {stored_as_fact}/{sum(trap_counts[c] for c in fact_classes)}")
    for trap_class in sorted(trap_counts):
        label = {"secret": "raw value kept", "not_secret": "redacted"}.get(trap_class, "stored as the user's fact")
        print(f"  {trap_class:<22} {trap_hits[trap_class]:>3}/{trap_counts[trap_class]:<3} {label}")
    print(f"what should be stored instead was: {kept}/{named}")

    if show_misses:
        print(f"\n-- {half} misses --")
        for case, missed in misses:
            said = f"[{case.previous[0]}] {case.previous[1]} / " if case.previous else ""
            print(f"{case.id}: {said}{case.text}")
            for line in missed + [f"    stored {line}" for line in stored[case.id].lines()]:
                print(f"    {line}")
        for case, broken in trap_misses:
            print(f"{case.id} ({case.trap_class}): {case.text}")
            for line in broken:
                print(f"    {line}")

    return {
        "phrasings": phrasings,
        "learnt": learnt,
        "kinds": len(kinds),
        "kinds_meeting_target": len(meeting),
        "wrong_slot": wrong_slot,
        "per_kind": {kind: vars(tallies[kind]) for kind in kinds},
        "traps": traps,
        "traps_stored_as_fact": stored_as_fact,
        "traps_per_class": {c: {"traps": trap_counts[c], "hit": trap_hits[c]} for c in sorted(trap_counts)},
        "instead_kept": kept,
        "instead_named": named,
    }


def model_settings(args: argparse.Namespace) -> dict[str, str]:
    """The stack's language-model settings for ``--model``: none without it (the rules alone)."""
    if not args.model:
        return {}
    return {
        "LORE_LLM_BASE_URL": args.model,
        "LORE_LLM_MODEL": args.model_name,
        "LORE_LLM_MAX_TOKENS": str(args.max_tokens),
    }


def selected(cases: list[Case], ids: str = "", every: int = 0) -> list[Case]:
    """The cases whose id ``ids`` finds (all when empty), then every ``every``-th of them (all when 0)."""
    if ids:
        cases = [case for case in cases if re.search(ids, case.id)]
    return cases[::every] if every else cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions in flight at once")
    parser.add_argument("--url", default="", help="a running gateway instead of a stack of our own")
    parser.add_argument("--api-key", default="", help="with --url: a key of an org to write test users into")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lore up` to run")
    parser.add_argument("--show-misses", action="store_true", help="print the tuning half's misses")
    parser.add_argument("--show-held-out-misses", action="store_true", help="the closing audit only")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--every", type=int, default=0, help="only every Nth case (a quick look; 0: all)")
    parser.add_argument("--ids", default="", help="only the cases whose id this regular expression finds")
    parser.add_argument("--model", metavar="URL", default="", help="the stack of our own uses this language model")
    parser.add_argument("--model-name", default="default", help="with --model: the model's name on that server")
    parser.add_argument("--max-tokens", type=int, default=1024, help="with --model: tokens per answer")
    args = parser.parse_args()

    halves = HALVES if args.half == "both" else (args.half,)
    kinds, chatter, cases = load_suite(halves)
    cases = selected(cases, args.ids, args.every)
    began = time.monotonic()
    if args.url:
        if args.model:
            parser.error("--model configures the stack of our own: set LORE_LLM_BASE_URL on the one at --url")
        stored = asyncio.run(measure(args.url, args.api_key, cases, args.concurrency))
    else:
        with tempfile.TemporaryDirectory() as temporary:
            data_dir = Path(temporary) / "data"
            env, url = stack_environment(data_dir, KEY, LORE_RATE_LIMIT="0", **model_settings(args))
            process, ready = start(data_dir, env, url, root=args.root)
            print(f"stack ready in {ready:.1f} s", file=sys.stderr)
            try:
                stored = asyncio.run(measure(url, KEY, cases, args.concurrency))
            finally:
                stop(process)
    seconds = time.monotonic() - began
    print(f"{len(cases)} sessions measured in {seconds:.0f} s (stack start included)")

    figures = {}
    for half in halves:
        show = args.show_held_out_misses if half == "held_out" else args.show_misses
        figures[half] = report(half, kinds, chatter, cases, stored, show)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
