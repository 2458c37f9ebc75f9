"""Context quality on LoCoMo through the public API: does the assembled context hold the question's
evidence and answer, next to BM25's best turns at the same token count, and does Prime?

    .venv/bin/python -m bench.context_quality            # all six conversations: ~3 min on 2 cores
    .venv/bin/python -m bench.context_quality --conversations 0,3 --limit-questions 30   # quicker
    [--json FIGURES.json] [--dump QUESTIONS.jsonl] [--keep] [--root CHECKOUT | --url URL --api-key KEY]

Starts the stack as the README does (``lore up`` in a temporary data directory on free ports, rate
limits off; ``--keep`` keeps the directory and its logs; ``--root`` runs another checkout's
``lore up``; ``--url`` uses a running gateway instead, with ``--api-key`` or ``LORE_API_KEY``, which
needs the ``admin`` scope for the job queue) and talks to it only through ``lore_client``.
``--dump`` writes every question's three texts, what they covered and why a candidate citing its evidence
was not kept (most often there was none: recall never returned it), to see why a figure moved.

**Import, as a user would.** Each conversation of ../shared/data/locomo-dev.json is a fresh user
(``locomo-<sample_id>-<hex>``) talking to the agent ``companion``: speaker_a's turns are the user's,
speaker_b's the assistant's. Every LoCoMo session in order is one Lore session: StartSession,
ImportTurns (``POST /v1/sessions/{id}/turns:import``) with the turn's text (plus " [shares <caption>]"
on image turns), its speaker's name (``--no-speakers``: none), its session's date and time as
``createdAt``, metadata ``dia_id`` and the dia_id as idempotency key; then EndSession. Reflection and episode jobs run
while the import goes on; after each conversation the benchmark polls ``GET /v1/admin/jobs`` until
none is queued, running or retrying (twice in a row) — it stops with an error if any is
dead-lettered, or if a session is not reflected to its last turn — and counts the user's episodes.

**Which context items stand for which turns.** ImportTurns writes each turn as a ``message``
memory carrying the turn's metadata and provenance (session, turn id); reflection writes what it
extracts with provenance REFLECTION and the turn ids, and beliefs with evidence citing the turn id
(``MESSAGE``) or the memories just written (``MEMORY_ITEM``). So after the import the benchmark
reads the user's memories (``GET /v1/memories``) and the sessions' turns (``GET …/turns``: turn id
→ dia_id from its metadata) and attributes each kept manifest entry (``outcome KEPT``) to turns:
- a message memory: its metadata ``dia_id`` (else its provenance turn, else its exact text);
- any other memory: the turns of its provenance (and of the memories consolidated into it);
- a belief (observation): the turns its supporting or context evidence cites, directly or through
  a cited memory (``GET /v1/observations/{id}``; contradicting evidence does not count);
- episodes, open threads, working memory, engagement: no turn (an episode carries its session,
  not its turns), so they never count as evidence — their text still counts for the answer.
Memories not listed (written after the listing) are fetched by id.

**Measures**, for every question of categories 1-4 with evidence (dia_ids normalised as in
bench/locomo_recall.py), at AssembleContext's default options (``POST /v1/context:assemble``, the
question as message, scope = the conversation's user and the agent, no session):
- *evidence*: share of the question's evidence turns covered by kept items (averaged over
  questions); "msg" counts only the turns' own message memories, like for like with BM25;
- *answer*: for gold answers of at most 5 words, the answer found in the context's text, both
  normalised (lower case, punctuation and articles removed, whole words; days spelled one way,
  "8 May 2023", whether written "2023-05-08" or "May 8, 2023"); *ctrl* is the same check
  of the same answer against the context made for a question of another conversation of the run
  (the i-th question against the next conversation's (i mod n)-th): what matches by chance;
- *tokens*: the sum of the sections' tokens as the assembler counts them; latency p50/p95 as the
  client sees it (REST, one call at a time), and the CPU each process of the stack spent per call
  (AssembleContext and Prime alternately, over all of them; bench.measure.CpuMeter: from the first
  call until the stack is idle again; not measured with ``--url``). The calls are made first, in
  order, and their contexts scored after the last one, so the reads scoring needs stay out of it.
- *BM25*: the conversation's turns ranked by BM25 (Okapi, k1 1.5, b 0.75, Lucene's idf; lower-cased
  words; the same text as imported), each rendered as the context renders a message memory
  ("- <text> (on 8 May 2023)"), kept best first while they fit in Lore's token count for that
  question (cl100k_base, the assembler's own ``TiktokenCounter``; a turn that does not fit is
  skipped and the next tried, as the assembler does); the same evidence and answer checks.
  *+date* is the same turns written as the context writes a message, with the date each relative
  time meant ("yesterday (7 May 2023)", ``lore_language.dates``), refitted to the same tokens: how
  much of Lore's answer lead is that rendering alone.
- *Prime* (``GET /v1/memory/prime``) with the question as initial message: answer in its
  ``formattedContext``, same control, its tokens and latency.
- *capped evidence*: the same share with each kept item credited for at most 3 of the question's
  turns (a belief or episode citing many turns cannot cover a question alone);
- *tokens*: also the median, and the share of the kept items' tokens spent on lines citing none of
  the question's evidence;
- *speaker named*: every kept message line (context and Prime) names the speaker its turn really
  had — the words before its first colon hold that speaker's name and no other speaker's ("The
  user"/"You" by role when imported without names); episode lines quoting "User:"/"Assistant:"
  are counted apart;
- *nothing relevant*: the share of contexts saying "Nothing relevant is remembered", for the real
  questions and for 50 questions of the next conversation asked of each user (``--control-questions``,
  no access recorded); on the tuning part, the share of each under a grid of thresholds on the
  best similarity of any searched candidate, the rule's input.
Conversations 0-2 are the ones to tune on, 3-5 are held out: tables for each part and overall.
AssembleContext and Prime record access by default, so each call slightly changes the salience the
next one sees: the order is fixed (questions in file order, each assembled then primed).

Embeddings: both calls run with default options and embed the question in the memory service (the
assembler hands recall's vector to the belief and episode searches), whose LRU of query embeddings
is keyed by the exact text; so Prime, asking the question AssembleContext just embedded, is answered
from that cache. That is realistic and kept: an agent's conversation opens the same way (StartSession
primes with the opening message, then the first turn assembles a context for that same message: one
embedding for the two calls, as the CPU per call here shows), and both must see the question itself
for the figures to mean anything. Per call, AssembleContext's latency includes the embedding and
Prime's does not (in an agent Prime comes first and carries it); the latency targets are
bench.assembler_load's, where every text is new. The memory service embeds a query without its names
(bench.measure.memory_embeds), so questions that differ only by a name share an embedding: the
file's 883 questions make 875 embedded texts (6 repeats within a conversation, "What recipes has …
made?", 2 across). A repeat's pair is answered from the cache too, as it would be for an agent
whose users ask so, and is kept: the questions are the benchmark. The cache's hits and misses over
the calls are printed (bench.measure.EmbeddingCacheMeter).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import math
import os
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from lore_client import AssembledContext, LoreApiError, LoreClient, NewTurn, Prime
from lore_language.dates import with_dates

from bench.local_stack import KEY, ROOT, stack_environment, start, stop
from bench.measure import CpuMeter, CpuUse, EmbeddingCacheMeter, percentile

DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
AGENT = "companion"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
PARTS = {"tuning (conversations 0-2)": range(0, 3), "held out (conversations 3-5)": range(3, 6)}
MAX_ANSWER_WORDS = 5
IMPORT_BATCH = 500  # ImportTurns' limit per call
JOB_POLL_SECONDS = 2.0
KEPT = "MANIFEST_OUTCOME_KEPT"
MESSAGE = "MEMORY_TYPE_MESSAGE"
KINDS = ("message", "extracted", "belief", "episode", "thread", "other")
EVIDENCE_PER_ITEM = 3  # an item citing many turns earns evidence credit for at most this many
NOTHING_FOUND = "nothing relevant is remembered"  # what a context says when it found nothing
SEARCHED = ("CANDIDATE_SOURCE_MEMORY", "CANDIDATE_SOURCE_EPISODE", "CANDIDATE_SOURCE_OBSERVATION")
_ROLE_LABEL = re.compile(r"\b(?:User|Assistant):")

_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")
_WORD = re.compile(r"\w+")
_PUNCTUATION = re.compile(r"[^\w\s]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_FIRST = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december)\s+"
    r"(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b",
    re.IGNORECASE,
)


# -- the data -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    role: str  # user | assistant
    text: str  # as imported
    said_at: datetime
    speaker: str = ""  # the speaker's name, imported with the turn unless --no-speakers


@dataclass(frozen=True, slots=True)
class Question:
    category: int
    text: str
    evidence: frozenset[str]
    answer: str  # normalised; "" when longer than MAX_ANSWER_WORDS words (not checked)


@dataclass
class Conversation:
    index: int
    sample_id: str
    user_id: str
    sessions: list[tuple[int, list[Turn]]]
    questions: list[Question]
    session_ids: list[str] = field(default_factory=list)

    @property
    def turns(self) -> list[Turn]:
        return [turn for _, turns in self.sessions for turn in turns]

    @property
    def scope(self) -> dict[str, str]:
        return {"userId": self.user_id, "agentId": AGENT}


def parse_session_date(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def normalise_evidence(raw: Iterable[Any], known: set[str]) -> frozenset[str]:
    """ "D8:6; D9:17" -> D8:6, D9:17; "D:11:26" -> D11:26; "D30:05" -> D30:5; unknown ids dropped."""
    ids = set()
    for entry in raw:
        for session, turn in _EVIDENCE.findall(str(entry)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id in known:
                ids.add(dia_id)
    return frozenset(ids)


def normalise(text: str) -> str:
    """Lower case, punctuation and articles out, whitespace collapsed (SQuAD's answer normalisation)."""
    return " ".join(_ARTICLES.sub(" ", _PUNCTUATION.sub(" ", text.lower())).split())


def spelled_days(text: str) -> str:
    """Every day spelled one way, "8 May 2023", as the context writes it: ISO days ("2023-05-08") and
    month-first days ("May 8, 2023", as some LoCoMo answers are written) alike, in answers and
    texts, so a checker does not miss a date for its spelling."""

    def spell(match: re.Match[str]) -> str:
        try:
            day = datetime(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return match[0]
        return f"{day.day} {day:%B %Y}"

    text = _ISO_DAY.sub(spell, text)
    return _MONTH_FIRST.sub(lambda m: f"{int(m[2])} {m[1].title()} {m[3]}", text)


def contains(text: str, answer: str) -> bool:
    """``answer`` (normalised) as whole words of ``text`` (normalised)."""
    return bool(answer) and f" {answer} " in f" {text} "


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text") or "")
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def read_conversation(index: int, sample: dict[str, Any], run_id: str, limit: int | None) -> Conversation:
    talk = sample["conversation"]
    numbers = sorted(int(match.group(1)) for key in talk if (match := _SESSION.fullmatch(key)) is not None)
    sessions = []
    for number in numbers:
        said_at = parse_session_date(talk[f"session_{number}_date_time"])
        turns = [
            Turn(
                turn["dia_id"],
                "user" if turn["speaker"] == talk["speaker_a"] else "assistant",
                turn_text(turn),
                said_at,
                str(turn["speaker"]),
            )
            for turn in talk[f"session_{number}"]
        ]
        sessions.append((number, turns))
    known = {turn.dia_id for _, turns in sessions for turn in turns}
    questions = []
    for qa in sample["qa"]:
        category = int(qa["category"])
        evidence = normalise_evidence(qa.get("evidence") or (), known)
        if category not in CATEGORIES or not evidence:
            continue
        gold = str(qa.get("answer", ""))
        answer = normalise(spelled_days(gold)) if len(gold.split()) <= MAX_ANSWER_WORDS else ""
        questions.append(Question(category, str(qa["question"]), evidence, answer))
    if limit is not None:
        questions = questions[:limit]
    user = f"locomo-{sample['sample_id']}-{run_id}"
    return Conversation(index, sample["sample_id"], user, sessions, questions)


# -- BM25 ------------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class Bm25:
    """Okapi BM25 over a fixed list of texts (k1 1.5, b 0.75; idf ln(1 + (N - df + 0.5) / (df + 0.5)),
    Lucene's, never negative). rank_bm25 is not a dependency of the project: this is all it takes."""

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.terms = [Counter(words(text)) for text in texts]
        self.lengths = [sum(terms.values()) for terms in self.terms]
        self.average = statistics.fmean(self.lengths) if self.lengths else 0.0
        frequency: Counter[str] = Counter()
        for terms in self.terms:
            frequency.update(terms.keys())
        count = len(texts)
        self.idf = {word: math.log(1 + (count - df + 0.5) / (df + 0.5)) for word, df in frequency.items()}
        self.k1, self.b = k1, b

    def ranked(self, query: str) -> list[int]:
        """Indices of the texts sharing a word with ``query``, best first (ties: earlier first)."""
        asked = [word for word in set(words(query)) if word in self.idf]
        scores = []
        for index, (terms, length) in enumerate(zip(self.terms, self.lengths, strict=True)):
            norm = self.k1 * (1 - self.b + self.b * length / self.average)
            score = sum(self.idf[w] * terms[w] * (self.k1 + 1) / (terms[w] + norm) for w in asked if w in terms)
            if score > 0:
                scores.append((-score, index))
        return [index for _, index in sorted(scores)]


def on_day(moment: datetime) -> str:
    """As the assembler ends a memory's text: " (on 8 May 2023)"."""
    return f" (on {moment.day} {moment:%B %Y})"


def bm25_context(
    conversation: Conversation,
    index: Bm25,
    question: str,
    budget: int,
    counter: TiktokenCounter,
    dated: bool = False,
) -> tuple[str, set[str], int]:
    """BM25's best turns, rendered like memories, that fit in ``budget`` tokens: text, dia_ids, tokens.
    ``dated``: with the dates their relative times meant, as the context writes a message."""
    turns = conversation.turns
    lines: list[str] = []
    chosen: set[str] = set()
    used = 0
    for position in index.ranked(question):
        turn = turns[position]
        said = with_dates(turn.text, turn.said_at) if dated else turn.text
        line = "- " + " ".join(f"{said}{on_day(turn.said_at)}".split())
        cost = counter.count(line) + (1 if lines else 0)  # the newline joining it
        if used + cost > budget:
            continue
        lines.append(line)
        chosen.add(turn.dia_id)
        used += cost
    text = "\n".join(lines)
    while lines and counter.count(text) > budget:  # BPE across the joins: never over the budget
        lines.pop()
        text = "\n".join(lines)
    return text, chosen, counter.count(text)


# -- import -------------------------------------------------------------------------------------


async def import_conversation(lore: LoreClient, conversation: Conversation, speakers: bool = True) -> float:
    """Sessions in order: StartSession, ImportTurns, EndSession (``speakers``: each turn with its
    speaker's name). Returns the seconds the calls took."""
    began = time.monotonic()
    importer = lore.with_options(timeout=300)
    for number, turns in conversation.sessions:
        session = await lore.start_session(conversation.scope, request_id=f"{conversation.user_id}/session_{number}")
        conversation.session_ids.append(session.id)
        for offset in range(0, len(turns), IMPORT_BATCH):
            batch = [
                NewTurn(
                    content=turn.text,
                    role=turn.role,
                    created_at=turn.said_at,
                    metadata={"dia_id": turn.dia_id},
                    idempotency_key=turn.dia_id,
                    speaker=turn.speaker if speakers else "",
                )
                for turn in turns[offset : offset + IMPORT_BATCH]
            ]
            await importer.import_turns(session.id, batch)
        await lore.end_session(session.id)
    return time.monotonic() - began


async def wait_for_jobs(lore: LoreClient, timeout: float) -> float:
    """Until no job of the org is queued, running or retrying, twice in a row; dead letters stop the run."""
    began = time.monotonic()
    quiet, last_report = 0, began
    while True:
        stats = await lore.job_stats()
        dead = {kind.kind: kind.dead for kind in stats if kind.dead}
        if dead:
            raise SystemExit(f"dead-lettered background jobs: {dead} (see the agent's log; lore jobs list)")
        busy = {kind.kind: kind.queued + kind.running + kind.retrying for kind in stats}
        quiet = quiet + 1 if not any(busy.values()) else 0
        if quiet >= 2:
            return time.monotonic() - began
        now = time.monotonic()
        if now - began > timeout:
            raise SystemExit(f"background jobs still busy after {timeout:.0f} s: {busy}")
        if now - last_report >= 30:
            print(f"  … waiting for jobs {busy} ({now - began:.0f} s)", file=sys.stderr, flush=True)
            last_report = now
        await asyncio.sleep(JOB_POLL_SECONDS)


async def check_done(lore: LoreClient, conversation: Conversation) -> int:
    """Every session reflected to its last turn (else the run stops); returns the user's episodes."""
    for session_id in conversation.session_ids:
        session = await lore.get_session(session_id)
        if session.reflected_turns < session.turn_count:
            raise SystemExit(
                f"session {session_id}: {session.reflected_turns} of {session.turn_count} turns reflected "
                "although no job is waiting"
            )
    episodes, token = 0, ""
    while True:
        page = await lore.list_episodes({"userId": conversation.user_id}, page_size=100, page_token=token)
        episodes += len(page)
        if not page.next_page_token or page.next_page_token == token:
            return episodes
        token = page.next_page_token


# -- attribution: kept items -> LoCoMo turns ----------------------------------------------------


class Attribution:
    """What each context item stands for: its kind and the dia_ids of the turns it comes from."""

    def __init__(self, lore: LoreClient, conversation: Conversation) -> None:
        self.lore = lore
        self.conversation = conversation
        self.turn_dia: dict[str, str] = {}  # Lore turn id -> dia_id
        self.by_text = {turn.text: turn.dia_id for turn in conversation.turns}
        self.memories: dict[str, tuple[str, frozenset[str]]] = {}
        self.beliefs: dict[str, frozenset[str]] = {}
        self.matched = Counter[str]()  # how message memories were attributed

    async def load(self) -> Counter[str]:
        for session_id in self.conversation.session_ids:
            async for turn in self.lore.iter_turns(session_id, page_size=500):
                dia_id = turn.metadata.get("dia_id") or self.by_text.get(turn.content, "")
                if dia_id:
                    self.turn_dia[turn.id] = dia_id
        listed: dict[str, dict[str, Any]] = {}
        async for memory in self.lore.iter_memories({"userId": self.conversation.user_id}, page_size=500):
            listed[memory.id] = dict(memory.raw)
        types = Counter(document.get("memoryType", "") for document in listed.values())
        for memory_id in listed:
            await self.memory(memory_id, listed)
        return types

    async def memory(
        self, memory_id: str, listed: dict[str, dict[str, Any]] | None = None
    ) -> tuple[str, frozenset[str]]:
        if not memory_id:  # a source that was unavailable: no item
            return "other", frozenset()
        if memory_id in self.memories:
            return self.memories[memory_id]
        self.memories[memory_id] = ("other", frozenset())  # a consolidation cycle ends here
        document = (listed or {}).get(memory_id)
        if document is None:
            with contextlib.suppress(LoreApiError):  # erased or archived since: no turn
                document = dict((await self.lore.get_memory(memory_id)).raw)
        if document is None:
            return self.memories[memory_id]
        provenance = document.get("provenance") or {}
        turns = {self.turn_dia[t] for t in provenance.get("turnIds") or () if t in self.turn_dia}
        for folded in provenance.get("consolidatedFrom") or ():
            turns |= (await self.memory(folded, listed))[1]
        kind = "extracted"
        if document.get("memoryType") == MESSAGE:
            kind = "message"
            dia_id = (document.get("metadata") or {}).get("dia_id", "")
            if dia_id:
                turns, how = {dia_id}, "metadata"
            elif turns:
                how = "provenance"
            elif (found := self.by_text.get(document.get("content", ""))) is not None:
                turns, how = {found}, "text"
            else:
                how = "none"
            self.matched[how] += 1
        self.memories[memory_id] = (kind, frozenset(turns))
        return self.memories[memory_id]

    async def belief(self, observation_id: str) -> frozenset[str]:
        if observation_id not in self.beliefs:
            turns: set[str] = set()
            with contextlib.suppress(LoreApiError):
                observation = await self.lore.get_observation(observation_id)
                for line in observation.evidence:
                    if line.stance == "EVIDENCE_STANCE_CONTRADICT":
                        continue
                    if line.source_type == "SOURCE_TYPE_MESSAGE" and line.source_id in self.turn_dia:
                        turns.add(self.turn_dia[line.source_id])
                    elif line.source_type == "SOURCE_TYPE_MEMORY_ITEM":
                        turns |= (await self.memory(line.source_id))[1]
            self.beliefs[observation_id] = frozenset(turns)
        return self.beliefs[observation_id]

    async def of(self, source: str, item_id: str) -> tuple[str, frozenset[str]]:
        if not item_id:  # a source that was unavailable: no item
            return "other", frozenset()
        if source == "CANDIDATE_SOURCE_MEMORY":
            return await self.memory(item_id)
        if source == "CANDIDATE_SOURCE_OBSERVATION":
            return "belief", await self.belief(item_id)
        if source == "CANDIDATE_SOURCE_EPISODE":
            return "episode", frozenset()
        if source == "CANDIDATE_SOURCE_OPEN_THREAD":
            return "thread", frozenset()
        return "other", frozenset()


# -- the questions ------------------------------------------------------------------------------


@dataclass
class Row:
    conversation: int
    category: int
    question: str
    answer: str
    evidence_ids: frozenset[str]
    covered: frozenset[str] = frozenset()
    bm25_covered: frozenset[str] = frozenset()
    evidence: float = 0.0
    evidence_messages: float = 0.0
    tokens: int = 0
    kept: Counter[str] = field(default_factory=Counter)
    evidence_dropped: list[str] = field(default_factory=list)  # candidates citing evidence, not kept: why
    text: str = ""
    bm25_evidence: float = 0.0
    bm25_tokens: int = 0
    bm25_text: str = ""
    bm25_dated_text: str = ""
    prime_text: str = ""
    prime_tokens: int = 0
    assemble_ms: float = 0.0
    prime_ms: float = 0.0
    control: Row | None = None
    capped: float = 0.0  # evidence with each item's credit capped at EVIDENCE_PER_ITEM turns
    item_tokens: int = 0  # tokens of the kept items' lines
    idle_tokens: int = 0  # of those, the lines citing none of the question's evidence
    nothing_found: bool = False
    max_similarity: float = 0.0  # the best similarity of any searched candidate (kept or not)
    lines_named: list[bool] = field(default_factory=list)  # per kept message line: names its speaker
    prime_named: list[bool] = field(default_factory=list)
    role_labels: int = 0  # lines (episodes) quoting with "User:"/"Assistant:" instead of who spoke
    unavailable: int = 0  # sources the context reports SOURCE_UNAVAILABLE (a loaded machine's timeouts)


@dataclass(frozen=True, slots=True)
class Control:
    """A context made for a question of another conversation, asked of this conversation's user."""

    conversation: int
    question: str
    nothing_found: bool
    max_similarity: float
    tokens: int
    text: str


@dataclass(frozen=True, slots=True)
class Answer:
    """A question's two calls, as timed."""

    context: AssembledContext
    assemble_ms: float
    primed: Prime
    prime_ms: float


def says_nothing_found(text: str) -> bool:
    return NOTHING_FOUND in text.casefold()


def max_similarity(manifest: Sequence[dict[str, Any]]) -> float:
    """The best similarity to the message of any candidate a search found (memories, episodes, beliefs)."""
    found = [
        float((entry.get("score") or {}).get("similarity", 0.0))
        for entry in manifest
        if entry.get("source") in SEARCHED
    ]
    return max(found, default=0.0)


def names_speaker(text: str, turn: Turn, names: Sequence[str]) -> bool:
    """Whether a line quoting ``turn`` says who said it: the words before its first colon name the
    turn's speaker and no other speaker of the conversation ("Caroline said: …"); a turn imported
    without names must read as the user's ("The user said: …") or the assistant's ("You said: …")."""
    label = text.partition(":")[0] if ":" in text else ""
    if not turn.speaker or not any(name in label for name in names):
        wanted = "the user" if turn.role == "user" else "you"
        return label.casefold().startswith(wanted) and not any(name in label for name in names)
    mine = re.search(rf"\b{re.escape(turn.speaker)}\b", label) is not None
    return mine and not any(re.search(rf"\b{re.escape(n)}\b", label) for n in names if n != turn.speaker)


async def ask_controls(lore: LoreClient, conversation: Conversation, other: Conversation, limit: int) -> list[Control]:
    """``other``'s questions asked of ``conversation``'s user (no access recorded): what a context says
    when nothing about the question is remembered."""
    found = []
    for question in other.questions[:limit]:
        context = await lore.assemble_context(question.text, conversation.scope, options={"recordAccess": False})
        tokens = sum(int(section.get("tokens", 0)) for section in context.sections)
        found.append(
            Control(
                conversation.index,
                question.text,
                says_nothing_found(context.text),
                max_similarity(context.manifest),
                tokens,
                context.text,
            )
        )
    return found


async def ask(lore: LoreClient, conversation: Conversation) -> list[Answer]:
    """AssembleContext then Prime for every question, in order, each timed."""
    answers = []
    for question in conversation.questions:
        began = time.perf_counter()
        context = await lore.assemble_context(question.text, conversation.scope)
        assemble_ms = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        primed = await lore.prime(conversation.scope, initial_message=question.text)
        answers.append(Answer(context, assemble_ms, primed, (time.perf_counter() - began) * 1000))
    return answers


async def score(
    conversation: Conversation, answers: list[Answer], attribution: Attribution, counter: TiktokenCounter
) -> list[Row]:
    index = Bm25([turn.text for turn in conversation.turns])
    by_dia = {turn.dia_id: turn for turn in conversation.turns}
    names = sorted({turn.speaker for turn in conversation.turns if turn.speaker})
    rows = []
    for question, answer in zip(conversation.questions, answers, strict=True):
        row = Row(conversation.index, question.category, question.text, question.answer, question.evidence)
        context = answer.context
        row.assemble_ms = answer.assemble_ms
        row.text = context.text
        row.tokens = sum(int(section.get("tokens", 0)) for section in context.sections)
        row.nothing_found = says_nothing_found(context.text)
        row.max_similarity = max_similarity(context.manifest)
        texts = {
            (str(item.get("source", "")), str(item.get("id", ""))): str(item.get("text", ""))
            for section in context.sections
            for item in section.get("items") or ()
        }
        covered: set[str] = set()
        capped: set[str] = set()
        messages: set[str] = set()
        for entry in context.manifest:
            if entry.get("outcome") == "MANIFEST_OUTCOME_SOURCE_UNAVAILABLE":
                row.unavailable += 1
                continue
            if entry.get("outcome") != KEPT:
                if question.evidence & (await attribution.of(entry.get("source", ""), entry.get("id", "")))[1]:
                    outcome = str(entry.get("outcome", "")).removeprefix("MANIFEST_OUTCOME_")
                    row.evidence_dropped.append(f"{entry.get('source', '')}:{outcome}")
                continue
            kind, turns = await attribution.of(entry.get("source", ""), entry.get("id", ""))
            row.kept[kind] += 1
            covered |= turns
            capped |= set(sorted(turns & question.evidence)[:EVIDENCE_PER_ITEM])
            tokens = int(entry.get("tokens", 0))
            row.item_tokens += tokens
            row.idle_tokens += 0 if turns & question.evidence else tokens
            text = texts.get((str(entry.get("source", "")), str(entry.get("id", ""))), "")
            if kind == "message":
                messages |= turns
                for dia_id in turns:
                    row.lines_named.append(names_speaker(text, by_dia[dia_id], names))
            elif kind == "episode":
                row.role_labels += len(_ROLE_LABEL.findall(text))
        row.covered = frozenset(covered & question.evidence)
        row.evidence = len(row.covered) / len(question.evidence)
        row.capped = len(capped) / len(question.evidence)
        row.evidence_messages = len(messages & question.evidence) / len(question.evidence)

        row.bm25_text, chosen, row.bm25_tokens = bm25_context(conversation, index, question.text, row.tokens, counter)
        row.bm25_covered = frozenset(chosen & question.evidence)
        row.bm25_evidence = len(row.bm25_covered) / len(question.evidence)
        row.bm25_dated_text = bm25_context(conversation, index, question.text, row.tokens, counter, dated=True)[0]

        primed = answer.primed
        for item in primed.salient_facts:  # the related memories are among them
            kind, turns = await attribution.memory(item.id)
            if kind == "message" and item.text in primed.formatted_context:
                row.prime_named += [names_speaker(item.text, by_dia[dia_id], names) for dia_id in turns]
        row.prime_ms = answer.prime_ms
        row.prime_text = primed.formatted_context
        row.prime_tokens = counter.count(primed.formatted_context)
        rows.append(row)
    return rows


def pair_controls(by_conversation: list[list[Row]]) -> None:
    """The i-th question of each conversation is checked against the context of the next
    conversation's (i mod n)-th: the same answer, a context made for someone else."""
    if len(by_conversation) < 2:
        return
    for position, rows in enumerate(by_conversation):
        others = by_conversation[(position + 1) % len(by_conversation)]
        for number, row in enumerate(rows):
            row.control = others[number % len(others)] if others else None


# -- the report --------------------------------------------------------------------------------


def share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


def figures(rows: list[Row]) -> dict[str, Any]:
    answered = [row for row in rows if row.answer]
    controlled = [row for row in answered if row.control is not None]

    def found(pick: str, within: list[Row], control: bool = False) -> float:
        texts = [(getattr(row.control, pick) if control else getattr(row, pick), row.answer) for row in within]
        return share([contains(normalise(spelled_days(text)), answer) for text, answer in texts])

    return {
        "questions": len(rows),
        "evidence": statistics.fmean(row.evidence for row in rows) if rows else float("nan"),
        "evidence_messages": statistics.fmean(row.evidence_messages for row in rows) if rows else float("nan"),
        "bm25_evidence": statistics.fmean(row.bm25_evidence for row in rows) if rows else float("nan"),
        "answer_questions": len(answered),
        "answer": found("text", answered),
        "answer_control": found("text", controlled, control=True),
        "bm25_answer": found("bm25_text", answered),
        "bm25_answer_control": found("bm25_text", controlled, control=True),
        "bm25_dated_answer": found("bm25_dated_text", answered),
        "prime_answer": found("prime_text", answered),
        "prime_answer_control": found("prime_text", controlled, control=True),
        "tokens": statistics.fmean(row.tokens for row in rows) if rows else float("nan"),
        "bm25_tokens": statistics.fmean(row.bm25_tokens for row in rows) if rows else float("nan"),
        "prime_tokens": statistics.fmean(row.prime_tokens for row in rows) if rows else float("nan"),
        "evidence_capped": statistics.fmean(row.capped for row in rows) if rows else float("nan"),
        "median_tokens": statistics.median(row.tokens for row in rows) if rows else float("nan"),
        "idle_token_share": _ratio(sum(row.idle_tokens for row in rows), sum(row.item_tokens for row in rows)),
        "nothing_found": share([row.nothing_found for row in rows]),
        "lines_named": share([named for row in rows for named in row.lines_named]),
        "message_lines": sum(len(row.lines_named) for row in rows),
        "prime_lines_named": share([named for row in rows for named in row.prime_named]),
        "prime_message_lines": sum(len(row.prime_named) for row in rows),
        "role_labels": sum(row.role_labels for row in rows),
    }


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else float("nan")


def control_figures(controls: list[Control]) -> dict[str, Any]:
    return {
        "questions": len(controls),
        "nothing_found": share([control.nothing_found for control in controls]),
        "median_tokens": statistics.median(c.tokens for c in controls) if controls else float("nan"),
    }


def similarity_grid(rows: list[Row], controls: list[Control]) -> list[tuple[float, float, float]]:
    """For thresholds on the best similarity: (threshold, share of real questions under it, share of
    control questions under it), to choose the "nothing found" rule on the tuning part."""
    grid = []
    for step in range(10, 61, 2):
        threshold = step / 100
        grid.append(
            (
                threshold,
                share([row.max_similarity < threshold for row in rows]),
                share([control.max_similarity < threshold for control in controls]),
            )
        )
    return grid


HEADER = (
    f"{'':16}{'n':>5} {'evidence: Lore':>14}{'msg':>6}{'BM25':>6}  {'n≤5':>5} {'answer: Lore':>12}{'ctrl':>6}"
    f"{'BM25':>6}{'ctrl':>6}{'+date':>6}{'Prime':>7}{'ctrl':>6}  {'tokens: Lore':>12}{'BM25':>6}{'Prime':>6}"
)


def table_line(name: str, f: dict[str, Any]) -> str:
    def num(value: float, width: int) -> str:
        return f"{'n/a':>{width}}" if math.isnan(value) else f"{value:>{width}.3f}"

    return (
        f"{name:16}{f['questions']:>5} {num(f['evidence'], 14)}{num(f['evidence_messages'], 6)}"
        f"{num(f['bm25_evidence'], 6)}  {f['answer_questions']:>5} {num(f['answer'], 12)}"
        f"{num(f['answer_control'], 6)}{num(f['bm25_answer'], 6)}{num(f['bm25_answer_control'], 6)}"
        f"{num(f['bm25_dated_answer'], 6)}"
        f"{num(f['prime_answer'], 7)}{num(f['prime_answer_control'], 6)}  {f['tokens']:>12.0f}"
        f"{f['bm25_tokens']:>6.0f}{f['prime_tokens']:>6.0f}"
    )


def report(rows: list[Row], cpu: CpuUse | None, controls: list[Control] = ()) -> dict[str, Any]:
    parts = {name: [row for row in rows if row.conversation in members] for name, members in PARTS.items()}
    parts["overall"] = rows
    result: dict[str, Any] = {}
    for name, within in parts.items():
        if not within:
            continue
        print(f"\n{name}")
        print(HEADER)
        result[name] = {}
        for category, label in CATEGORIES.items():
            chosen = [row for row in within if row.category == category]
            if chosen:
                result[name][label] = figures(chosen)
                print(table_line(f"{category} {label}", result[name][label]))
        every = result[name]["all (1-4)"] = figures(within)
        print(table_line("all (1-4)", every))
        members = {row.conversation for row in within}
        against = [control for control in controls if control.conversation in members]
        result[name]["control"] = control_figures(against)
        print(
            f"  evidence with at most {EVIDENCE_PER_ITEM} turns per item: Lore {every['evidence_capped']:.3f} "
            f"(BM25 {every['bm25_evidence']:.3f}); tokens median {every['median_tokens']:.0f}, "
            f"share on lines citing no evidence {every['idle_token_share']:.3f}\n"
            f"  speaker named: context {every['lines_named']:.3f} of {every['message_lines']} message lines, "
            f"Prime {every['prime_lines_named']:.3f} of {every['prime_message_lines']}; "
            f"episode lines quoting 'User:'/'Assistant:' {every['role_labels']}\n"
            f"  'nothing relevant': real questions {every['nothing_found']:.3f}, "
            f"another conversation's questions {result[name]['control']['nothing_found']:.3f} "
            f"({len(against)}; median tokens {result[name]['control']['median_tokens']:.0f})"
        )
        if name.startswith("tuning") and against:
            grid = similarity_grid(within, against)
            result[name]["similarity_grid"] = grid
            print(
                "  best similarity under t -> real / control: "
                + ", ".join(f"{t:.2f} {r:.2f}/{c:.2f}" for t, r, c in grid)
            )
    kept = Counter[str]()
    for row in rows:
        kept.update(row.kept)
    mean_kept = {kind: round(kept[kind] / len(rows), 2) for kind in KINDS if kept[kind]}
    assemble = [row.assemble_ms for row in rows]
    prime = [row.prime_ms for row in rows]
    result["kept_items_per_context"] = mean_kept
    result["assemble_ms_p50_p95"] = [round(percentile(assemble, 50), 1), round(percentile(assemble, 95), 1)]
    result["prime_ms_p50_p95"] = [round(percentile(prime, 50), 1), round(percentile(prime, 95), 1)]
    print(f"\nkept items per context (mean, by what they are): {mean_kept}")
    result["sources_unavailable"] = sum(row.unavailable for row in rows)
    print(f"sources unavailable (timeouts, outages) over all contexts: {result['sources_unavailable']}")
    print(
        f"AssembleContext: p50 {result['assemble_ms_p50_p95'][0]} ms, p95 {result['assemble_ms_p50_p95'][1]} ms; "
        f"Prime: p50 {result['prime_ms_p50_p95'][0]} ms, p95 {result['prime_ms_p50_p95'][1]} ms "
        f"({len(rows)} calls each, REST, sequential)"
    )
    if cpu is None:
        print("  CPU per call: not measured (--url: the stack is not this run's)")
    else:
        print(cpu.line())
        result["cpu_ms_per_call"] = {name: round(ms, 2) for name, ms in cpu.per_call_ms().items()}
        result["cpu_span"] = f"{cpu.span}; {cpu.calls} calls"
    if not any(row.control for row in rows):
        print("ctrl: n/a — the control needs two conversations or more in the run")
    return result


def dump(rows: list[Row], path: Path, controls: Sequence[Control] = ()) -> None:
    """One JSON line per question: what each context held, to see why a figure is what it is; then
    one per control question ("control": true)."""
    with path.open("w") as out:
        for control in controls:
            out.write(json.dumps({"control": True, **dataclasses.asdict(control)}, ensure_ascii=False) + "\n")
        for row in rows:
            line = {
                "conversation": row.conversation,
                "category": row.category,
                "question": row.question,
                "answer": row.answer,
                "evidence": sorted(row.evidence_ids),
                "lore": {
                    "max_similarity": row.max_similarity,
                    "nothing_found": row.nothing_found,
                    "lines_named": row.lines_named,
                    "covered": sorted(row.covered),
                    "kept": dict(row.kept),
                    "evidence_dropped": row.evidence_dropped,
                    "tokens": row.tokens,
                    "text": row.text,
                },
                "bm25": {
                    "covered": sorted(row.bm25_covered),
                    "tokens": row.bm25_tokens,
                    "text": row.bm25_text,
                    "dated_text": row.bm25_dated_text,
                },
                "prime": {"tokens": row.prime_tokens, "text": row.prime_text},
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


# -- the run ------------------------------------------------------------------------------------


async def run(
    args: argparse.Namespace,
    url: str,
    api_key: str,
    meter: CpuMeter | None = None,
    cache: EmbeddingCacheMeter | None = None,
) -> dict[str, Any]:
    samples = json.loads(Path(args.data).read_text())
    picked = [int(part) for part in args.conversations.split(",")] if args.conversations else range(len(samples))
    run_id = secrets.token_hex(3)
    conversations = [read_conversation(i, samples[i], run_id, args.limit_questions) for i in picked]
    counter = TiktokenCounter()
    imported: dict[str, Any] = {"conversations": [], "turns": 0, "sessions": 0, "import_s": 0.0, "jobs_s": 0.0}
    async with LoreClient(url, api_key, timeout=60, max_retries=3) as lore:
        attributions = []
        for conversation in conversations:
            seconds = await import_conversation(lore, conversation, speakers=not args.no_speakers)
            waited = await wait_for_jobs(lore, args.job_timeout)
            episodes = await check_done(lore, conversation)
            if episodes != len(conversation.sessions):
                print(
                    f"  warning: {episodes} episodes for {len(conversation.sessions)} ended sessions", file=sys.stderr
                )
            attribution = Attribution(lore, conversation)
            types = await attribution.load()
            attributions.append(attribution)
            turns = len(conversation.turns)
            line = {
                "conversation": conversation.index,
                "sample_id": conversation.sample_id,
                "sessions": len(conversation.sessions),
                "turns": turns,
                "import_s": round(seconds, 1),
                "jobs_s": round(waited, 1),
                "episodes": episodes,
                "memories": {kind.removeprefix("MEMORY_TYPE_").lower(): n for kind, n in sorted(types.items())},
                "message_memories_matched_by": dict(attribution.matched),
            }
            imported["conversations"].append(line)
            imported["turns"] += turns
            imported["sessions"] += len(conversation.sessions)
            imported["import_s"] += seconds
            imported["jobs_s"] += waited
            print(
                f"imported conversation {conversation.index} ({conversation.sample_id}): {len(conversation.sessions)} "
                f"sessions, {turns} turns in {seconds:.1f} s, background jobs done {waited:.1f} s later; "
                f"{episodes} episodes, memories {line['memories']}; "
                f"message memories matched by {line['message_memories_matched_by']}",
                flush=True,
            )
        answers = []
        if cache is not None:
            cache.start()
        if meter is not None:
            meter.start()
        began = time.monotonic()
        for conversation in conversations:
            answers.append(await ask(lore, conversation))
            print(f"asked conversation {conversation.index}: {len(conversation.questions)} questions", flush=True)
        asked_s = time.monotonic() - began
        calls = 2 * sum(len(conversation.questions) for conversation in conversations)
        cpu = await meter.stop_async(calls) if meter is not None else None
        cached = cache.line() if cache is not None else ""  # Prime's hits: the docstring says why
        controls: list[Control] = []
        if len(conversations) > 1 and args.control_questions > 0:
            for position, conversation in enumerate(conversations):
                other = conversations[(position + 1) % len(conversations)]
                controls += await ask_controls(lore, conversation, other, args.control_questions)
            print(f"asked {len(controls)} questions of another conversation's user", flush=True)
        by_conversation = [
            await score(conversation, answered, attribution, counter)
            for conversation, answered, attribution in zip(conversations, answers, attributions, strict=True)
        ]
    pair_controls(by_conversation)
    rows = [row for rows in by_conversation for row in rows]
    print(
        f"\nimport: {imported['turns']} turns in {imported['sessions']} sessions "
        f"of {len(conversations)} conversations; "
        f"calls {imported['import_s']:.1f} s, the background jobs (running alongside) done "
        f"{imported['jobs_s']:.1f} s after them; "
        f"questions: {len(rows)} in {asked_s:.1f} s"
    )
    result = report(rows, cpu, controls)
    if cached:
        print(cached)
    if args.dump:
        dump(rows, args.dump, controls)
    imported["import_s"] = round(imported["import_s"], 1)
    imported["jobs_s"] = round(imported["jobs_s"], 1)
    return {"import": imported, "questions_s": round(asked_s, 1), **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--conversations", default="", help="indices in the file, e.g. 0,1 (default: all)")
    parser.add_argument("--limit-questions", type=int, default=None, help="at most N questions per conversation")
    parser.add_argument("--url", default="", help="a running gateway instead of a stack of our own")
    parser.add_argument("--api-key", default=os.environ.get("LORE_API_KEY", ""), help="with --url (admin scope)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lore up` to run")
    parser.add_argument("--job-timeout", type=float, default=7200, help="seconds to wait for background jobs")
    parser.add_argument("--no-speakers", action="store_true", help="import the turns without speaker names")
    parser.add_argument(
        "--control-questions", type=int, default=50, help="per conversation, questions of the next one asked of it"
    )
    parser.add_argument("--keep", action="store_true", help="keep the stack's data directory (its logs)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--dump", type=Path, help="write every question's contexts here (JSON lines)")
    args = parser.parse_args()
    command = " ".join([".venv/bin/python -m bench.context_quality", *sys.argv[1:]])
    began = time.monotonic()
    if args.url:
        figures_ = asyncio.run(run(args, args.url, args.api_key))
    else:
        directory = Path(tempfile.mkdtemp(prefix="lore-bench-context-"))
        data_dir = directory / "data"
        env, url = stack_environment(data_dir, KEY, LORE_RATE_LIMIT="0")
        process, ready = start(data_dir, env, url, root=args.root)
        print(f"lore up ({args.root}) ready in {ready:.1f} s; data in {directory}", flush=True)
        try:
            meter, cache = CpuMeter.of_stack(process.pid, data_dir), EmbeddingCacheMeter.of_env(env)
            figures_ = asyncio.run(run(args, url, KEY, meter, cache))
        finally:
            stop(process)
            if args.keep:
                print(f"kept {directory} (logs in {data_dir / 'logs'})")
            else:
                shutil.rmtree(directory, ignore_errors=True)
    total = time.monotonic() - began
    print(f"\ncommand: {command}\nwall time: {total:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"command": command, "wall_s": round(total, 1), **figures_}, indent=2) + "\n")


if __name__ == "__main__":
    main()
