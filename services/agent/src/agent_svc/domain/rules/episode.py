"""A whole conversation → an episode draft: what it was about, what was decided and promised, what
is still open, and how the user came across.

The summary is told in the third person (rules/summary.py ``episode_summary``): who talked about
what, the most informative sentences, what was decided and what is still open. It is what an
episode says when no embedding model chooses the sentences (usecases/episodes.py) and what a
language model's summary falls back to.

Open threads are the user's questions that got no real answer (the next assistant turns, up to the
user's next question, only ask back, say they do not know or will check, or there are none) and
commitments nobody reported done. Importance grows with decisions, commitments, open threads and
the strongest emotion: ``0.3 + 0.1·decisions + 0.07·commitments + 0.03·open threads + 0.15·emotion``
(each count capped at 3), clamped to 0.3..0.9.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence

from agent_svc.domain.extraction import ActionItem, Emotion, EpisodeDraft, Outcome, Thread, UserState, Utterance
from agent_svc.domain.rules.agreement import agreed_proposal
from agent_svc.domain.rules.dates import dated
from agent_svc.domain.rules.emotion import detect_emotion
from agent_svc.domain.rules.memories import Statement, entities_in, statements
from agent_svc.domain.rules.summary import ROLLING_SUMMARY_CHARS, episode_summary, keyphrases
from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, content_words, sentences

MAX_TURNS = 400
MAX_ITEMS = 10
_I = re.IGNORECASE
_NO_ANSWER = re.compile(
    r"\b(?:i don't know|i do not know|i'm not sure|i am not sure|not sure|no idea|i'll check|i will check|"
    r"let me check|i'll look into|i'll find out|get back to you|can't tell|cannot tell)\b",
    _I,
)
_BLOCKED = re.compile(r"\b(?:blocked|waiting (?:on|for)|stuck on|depends on)\b", _I)
_RESOLVED = re.compile(r"\b(?:that fixed it|fixed it|it works now|that worked|works now|problem solved|did the trick|"
                       r"all good now|that solved it|solved)\b", _I)  # fmt: skip
_LEARNED = re.compile(r"\b(?:i didn't know that|i did not know that|til|good to know|today i learned|i learned|"
                      r"that makes sense now|makes sense now|now i understand|i see now)\b", _I)  # fmt: skip
_DONE = re.compile(r"\b(?:done|sent|finished|completed|submitted|shipped|here is|here's|attached)\b", _I)
_SMALL_TALK = re.compile(r"^(?:how are you|how's it going|what's up|are you there|can you help(?: me)?|ready|"
                         r"right|ok|okay|really|any questions|anything else)\b", _I)  # fmt: skip
_HEDGES = re.compile(r"\b(?:maybe|perhaps|i think|i guess|not sure|probably|might|kind of|sort of|no idea|i suppose|"
                     r"i'm confused|unsure)\b", _I)  # fmt: skip
_ASSERTIVE = re.compile(r"\b(?:definitely|certainly|for sure|i know|clearly|absolutely|decided|i'm sure|i am sure|"
                        r"exactly|let's)\b", _I)  # fmt: skip


def _questions(turn: Utterance) -> list[str]:
    found = []
    for sentence in sentences(turn.content):
        text = " ".join(sentence.clean.split())
        if sentence.is_question and len(text) <= MAX_SENTENCE_CHARS and content_words(text):
            if not _SMALL_TALK.match(text):
                found.append(text)
    return found


def _answered(later: Sequence[Utterance]) -> tuple[bool, str]:
    """Whether the assistant turns after a question (up to the user's next question) answer it."""
    reason = "no reply"
    for turn in later:
        if turn.role == "user" and _questions(turn):
            break
        if turn.role != "assistant":
            continue
        parts = sentences(turn.content)
        if not parts:
            continue
        if _NO_ANSWER.search(turn.content):
            return False, "the assistant did not know or will check"
        if all(p.is_question for p in parts):
            reason = "the assistant asked back"
            continue
        return True, ""
    return False, reason


def _pending(statement: Statement, later: Sequence[Utterance]) -> bool:
    """A commitment is pending unless its owner later says it is done with some of the task's words."""
    task_words = set(content_words(statement.task))
    for turn in later:
        if turn.role == statement.memory.owner and _DONE.search(turn.content):
            if not task_words or task_words & set(content_words(turn.content)):
                return False
    return True


def _lesson(rest: str, before: Sequence[Utterance]) -> str:
    """What was learned: the user's own words after "I didn't know that", else what the assistant said."""
    said = sentences(rest)
    if said and len(content_words(said[0].clean)) >= 2:
        return said[0].text.strip().rstrip(".!")[:200] + "."
    told = next((t for t in reversed(before) if t.role == "assistant"), None)
    for sentence in sentences(told.content if told else ""):
        if len(content_words(sentence.clean)) >= 3:
            return sentence.text.strip()[:200]
    return rest.strip()[:200] or "something new"


def _you(task: str) -> str:
    return re.sub(r"\bmy\b", "your", re.sub(r"\bme\b", "you", task, flags=_I), flags=_I)


def build_episode(turns: Sequence[Utterance]) -> EpisodeDraft:
    turns = [t for t in turns[:MAX_TURNS] if isinstance(t.content, str)]
    spoken = [(t.role, t.content) for t in turns if t.role in ("user", "assistant")]
    if not any(content_words(text) for _, text in spoken):
        return EpisodeDraft(summary="")
    found: list[tuple[int, Statement]] = []
    for i, turn in enumerate(turns):
        said = statements(turn.content, turn.role)
        if turn.said_at is not None:
            said = [dataclasses.replace(s, memory=dated(s.memory, turn.said_at)) for s in said]
        agreed = agreed_proposal(turn, turns[:i]) if not said else None
        found += [(i, s) for s in (said or ([agreed] if agreed else []))]
    decisions = tuple(dict.fromkeys(s.memory.content for _, s in found if s.memory.kind == "decision"))
    outcomes: list[Outcome] = [Outcome("decision", d) for d in decisions]
    for i, turn in enumerate(turns):
        if turn.role != "user":
            continue
        if _RESOLVED.search(turn.content):
            problem = next((q for t in reversed(turns[:i]) if t.role == "user" for q in _questions(t)), "")
            outcomes.append(Outcome("resolution", f"Resolved: {problem or turn.content.strip()[:200]}"))
        learned = _LEARNED.search(turn.content)
        if learned:
            outcomes.append(Outcome("learning", f"Learned: {_lesson(turn.content[learned.end() :], turns[:i])}"))

    threads: list[Thread] = []
    questions_next: list[str] = []
    for i, turn in enumerate(turns):
        if turn.role != "user":
            continue
        for question in _questions(turn):
            answered, reason = _answered(turns[i + 1 :])
            if answered:
                continue
            later_text = " ".join(t.content for t in turns[i : i + 3])
            status = "blocked" if _BLOCKED.search(later_text) else "open"
            threads.append(Thread(topic=question[:200], status=status, context=f"Unanswered: {reason}."))
            questions_next.append(f'Do you still need an answer to "{question[:200]}"')
    action_items: list[ActionItem] = []
    for i, statement in found:
        memory = statement.memory
        if memory.kind != "commitment":
            continue
        action_items.append(ActionItem(owner=memory.owner, task=statement.task, deadline=memory.deadline))
        if _pending(statement, turns[i + 1 :]):
            status = "blocked" if _BLOCKED.search(turns[i].content) else "open"
            threads.append(Thread(topic=statement.task[:200], status=status, context=memory.content))
            due = f" ({memory.deadline})" if memory.deadline else ""
            if memory.owner == "user":
                questions_next.append(f"Did you {_you(statement.task)}{due}?")
            else:
                questions_next.append(f"I said I would {statement.task}{due}: is that still needed?")

    topics = keyphrases([text for _, text in spoken], k=5)
    entity_counts = Counter(e for _, text in spoken for e in entities_in(text))
    entity_order = {e: n for n, e in reversed(list(enumerate(e for _, text in spoken for e in entities_in(text))))}
    entities = tuple(sorted(entity_counts, key=lambda e: (-entity_counts[e], entity_order[e]))[:20])
    emotions = [e for t in turns if t.role == "user" for e in [detect_emotion(t.content, "user")] if e]
    state = UserState(mood=_mood(emotions), confidence=_confidence(turns), focus=topics[0] if topics else "")
    commitments = sum(1 for _, s in found if s.memory.kind == "commitment")
    importance = (
        0.3
        + 0.1 * min(len(decisions), 3)
        + 0.07 * min(commitments, 3)
        + 0.03 * min(len(threads), 3)
        + 0.15 * max((e.intensity for e in emotions), default=0.0)
    )
    open_threads = tuple(dict.fromkeys(threads))[:MAX_ITEMS]
    return EpisodeDraft(
        summary=episode_summary(spoken, decided=decisions),  # open threads are shown live
        key_topics=topics,
        entities=entities,
        user_state=state,
        outcomes=tuple(dict.fromkeys(outcomes))[:MAX_ITEMS],
        open_threads=open_threads,
        decisions=decisions[:MAX_ITEMS],
        action_items=tuple(dict.fromkeys(action_items))[:MAX_ITEMS],
        next_session_questions=tuple(dict.fromkeys(questions_next))[:MAX_ITEMS],
        importance=round(max(0.3, min(0.9, importance)), 3),
    )


def with_summary(draft: EpisodeDraft) -> EpisodeDraft | None:
    """The draft an episode is made of, or None when the conversation gave nothing to remember.

    An episode needs a summary. When the extractor found none (a greeting or an "ok, thanks" has no
    content words; a language model may answer an empty one), the summary is made of what else it
    found — its decisions, else its topics; a draft with neither makes no episode, as a session with
    no turns makes none."""
    if draft.summary.strip():
        return draft
    if draft.decisions:
        summary = " ".join(draft.decisions[:3])
    elif draft.key_topics:
        summary = f"Talked about {', '.join(draft.key_topics[:5])}."
    else:
        return None
    return dataclasses.replace(draft, summary=summary[:ROLLING_SUMMARY_CHARS])


def _mood(emotions: list[Emotion]) -> str:
    """The label with the most intensity, later turns weighing more (the mood the user left in)."""
    if not emotions:
        return "neutral"
    weight: Counter[str] = Counter()
    for n, emotion in enumerate(emotions):
        weight[emotion.label] += emotion.intensity * (1.0 + n / len(emotions))
    return max(weight, key=lambda label: (weight[label], -[e.label for e in emotions].index(label)))


def _confidence(turns: Sequence[Utterance]) -> str:
    text = " ".join(t.content[:4000] for t in turns if t.role == "user")
    if not text.strip():
        return ""
    score = len(_ASSERTIVE.findall(text)) - len(_HEDGES.findall(text))
    return "high" if score > 0 else "low" if score < 0 else "medium"
