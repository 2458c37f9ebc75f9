"""An offline model of Recall's ranking on LoCoMo, to try ranking ideas in seconds before building
them into the service (bench/locomo_recall.py gives the figures that count, through the service).

    .venv/bin/python -m bench.recall_lab            # every variant, tuning and held-out parts

It ranks each conversation's turns the way Recall ranks message memories written by the Remember
path of bench/locomo_recall.py: the same index text (``memory_svc.domain.index_text``: the day, then
"Speaker: text"), the packaged MiniLM, the service's BM25 document and query vectors
(``domain.lexical``) with Qdrant's IDF over the whole collection, ``domain.ranking.fuse`` over the
top 200 of each side, and nothing else (every item is new and of the same importance, so salience
and importance do not reorder). Its base row matches the service's figures within ±0.005.

Variants lift a turn by what is around it, with the weights the flags name (each in [0, 1], added
to the fused relevance):
- *neighbours*: the best relevance among the turns at most ``window`` places before or after it in
  its session (divided by the distance): the answer is often the reply to the turn the question
  matches;
- *session*: its session's best relevance over the best of any session: the evidence sits where
  the conversation was about the question;
- *speaker*: the question names exactly one speaker and the turn is theirs;
- *feedback* (pseudo-relevance feedback): BM25 again with up to 10 terms shared by at least two of
  the top 5 turns added to the query at the given weight.
The embeddings are cached in a temporary file (``--cache``) after the first run (~40 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from memory_svc.domain.conversation import ConversationLift, Said, lifts, named_speaker
from memory_svc.domain.dense_query import dense_query
from memory_svc.domain.lexical import encode_document, encode_query, tokenize
from memory_svc.domain.ranking import fuse

from bench.locomo_recall import CATEGORIES, DATA, KS, PARTS, LocomoTurn, Question, questions_of, turns_of

DEPTH = 200  # Recall's candidate depth at k = 25 (k × 8)


@dataclass(frozen=True)
class Lab:
    turns: list[tuple[str, LocomoTurn]]  # (sample_id, turn), conversation by conversation
    questions: list[Question]
    turn_vectors: np.ndarray
    question_vectors: np.ndarray  # of each question without its names (``domain.dense_query``), as Recall asks
    rows_of: dict[str, np.ndarray]  # sample_id -> indices into turns
    bm25: dict[int, dict[int, float]]  # term index -> {turn index: idf × document weight}


def index_text(turn: LocomoTurn) -> str:
    return f"{turn.said_at.day} {turn.said_at:%B %Y}: {turn.speaker}: {turn.text}"


async def _embed(texts: Sequence[str]) -> np.ndarray:
    from lore_embeddings.onnx import OnnxMiniLmEmbedder

    embedder = OnnxMiniLmEmbedder.load()
    return np.vstack([await embedder.embed(list(texts[i : i + 64])) for i in range(0, len(texts), 64)])


def load(data: Path, cache: Path) -> Lab:
    samples = json.loads(data.read_text())
    turns = [(sample["sample_id"], turn) for sample in samples for turn in turns_of(sample)]
    questions = [question for sample in samples for question in questions_of(sample)[0]]
    if cache.exists():
        stored = np.load(cache)
        turn_vectors, question_vectors = stored["turns"], stored["questions"]
    else:
        turn_vectors = asyncio.run(_embed([index_text(turn) for _, turn in turns]))
        question_vectors = asyncio.run(_embed([dense_query(question.text) for question in questions]))
        np.savez(cache, turns=turn_vectors, questions=question_vectors)
    rows_of: dict[str, list[int]] = defaultdict(list)
    for row, (sample_id, _) in enumerate(turns):
        rows_of[sample_id].append(row)
    documents = [encode_document(index_text(turn)).as_dict() for _, turn in turns]
    having = Counter(term for document in documents for term in document)
    total = len(documents)
    bm25: dict[int, dict[int, float]] = defaultdict(dict)
    for row, document in enumerate(documents):
        for term, weight in document.items():
            idf = math.log(1.0 + (total - having[term] + 0.5) / (having[term] + 0.5))  # Qdrant's Modifier.IDF
            bm25[term][row] = idf * weight
    return Lab(turns, questions, turn_vectors, question_vectors, {k: np.array(v) for k, v in rows_of.items()}, bm25)


def lexical_scores(lab: Lab, terms: dict[int, float]) -> dict[int, float]:
    scores: dict[int, float] = defaultdict(float)
    for term, weight in terms.items():
        for row, value in lab.bm25.get(term, {}).items():
            scores[row] += weight * value
    return scores


def relevance(lab: Lab, rows: np.ndarray, question: int, terms: dict[int, float]) -> np.ndarray:
    """Recall's fused relevance of each of ``rows`` (0 for a turn neither search returns)."""
    cosine = lab.turn_vectors[rows] @ lab.question_vectors[question]
    dense = sorted(((str(r), float(c)) for r, c in zip(rows, cosine, strict=True)), key=lambda h: -h[1])[:DEPTH]
    lexical_all = lexical_scores(lab, terms)
    lexical = sorted(((str(r), lexical_all[r]) for r in rows if lexical_all.get(r, 0) > 0), key=lambda h: -h[1])
    fused = {int(candidate.id): candidate.relevance for candidate in fuse(dense, lexical[:DEPTH])}
    return np.array([fused.get(int(row), 0.0) for row in rows])


def lift_in_window(
    score: np.ndarray, turns: Sequence[LocomoTurn], size: int, lift: ConversationLift, whole: int, question: str
) -> np.ndarray:
    """The service's lift (``conversation.lifts``, with the speaker ``question`` names among them)
    over the ``size`` best of ``score``, and over every turn of the ``whole`` sessions with the best
    turns among them (read whole); a turn past them keeps its score."""
    window = np.argsort(-score, kind="stable")[:size]
    if whole:
        best: dict[int, float] = {}
        for row in window:
            best.setdefault(turns[row].session, float(score[row]))
        read = sorted(best, key=lambda session: -best[session])[:whole]
        window = np.unique(np.r_[window, [row for row, turn in enumerate(turns) if turn.session in read]])
    said = {
        str(row): Said(str(row), str(turns[row].session), turns[row].said_at, turns[row].said_at, turns[row].speaker)
        for row in window
    }
    lifted = lifts({str(row): float(score[row]) for row in window}, said, lift, named_speaker(question, said))
    final = score.copy()
    for key, value in lifted.items():
        final[int(key)] += value
    return final


def around(values: np.ndarray, sessions: np.ndarray, window: int) -> np.ndarray:
    """For each turn, the best value among the turns at most ``window`` places away in its session,
    divided by the distance."""
    best = np.zeros_like(values)
    for distance in range(1, window + 1):
        for shifted, shifted_sessions in (
            (np.r_[np.zeros(distance), values[:-distance]], np.r_[np.full(distance, -1), sessions[:-distance]]),
            (np.r_[values[distance:], np.zeros(distance)], np.r_[sessions[distance:], np.full(distance, -1)]),
        ):
            best = np.maximum(best, shifted * (shifted_sessions == sessions) / distance)
    return best


def session_best(values: np.ndarray, sessions: np.ndarray) -> np.ndarray:
    best = {session: values[sessions == session].max() for session in np.unique(sessions)}
    top = max(best.values()) or 1.0
    return np.array([best[session] / top for session in sessions])


@dataclass(frozen=True)
class Variant:
    name: str
    neighbours: float = 0.0
    window: int = 1
    session: float = 0.0
    speaker: float = 0.0
    feedback: float = 0.0
    in_window: int = 0  # > 0: neighbours and session lift only the best ``in_window`` (as the service)
    whole: int = 0  # and every turn of this many of the window's best sessions

    def ranker(self, lab: Lab) -> Callable[[int], list[str]]:
        def ranked(question_index: int) -> list[str]:
            question = lab.questions[question_index]
            rows = lab.rows_of[question.sample_id]
            turns = [lab.turns[row][1] for row in rows]
            terms = encode_query(question.text).as_dict()
            score = relevance(lab, rows, question_index, terms)
            if self.feedback:
                shared = Counter(term for i in np.argsort(-score)[:5] for term in set(tokenize(index_text(turns[i]))))
                asked = set(tokenize(question.text))
                extra = [term for term, count in shared.most_common(10) if count >= 2 and term not in asked]
                terms |= {index: self.feedback for index in encode_query(" ".join(extra)).as_dict()}
                score = relevance(lab, rows, question_index, terms)
            sessions = np.array([turn.session for turn in turns])
            final = score.copy()
            if self.in_window:
                lift = ConversationLift(self.neighbours, self.window, self.session, speaker=self.speaker)
                final = lift_in_window(score, turns, self.in_window, lift, self.whole, question.text)
            elif self.neighbours:
                final += self.neighbours * around(score, sessions, self.window)
            if self.session and not self.in_window:
                final += self.session * session_best(score, sessions)
            if self.speaker and not self.in_window:
                everyone = {
                    str(row): Said(str(row), "", turn.said_at, turn.said_at, turn.speaker)
                    for row, turn in enumerate(turns)
                }
                named = named_speaker(question.text, everyone)
                final += self.speaker * np.array([bool(named) and turn.speaker == named for turn in turns])
            return [turns[i].dia_id for i in np.argsort(-final, kind="stable")]

        return ranked


VARIANTS = [
    Variant("base (no lift)"),
    Variant(
        "Recall today (50, 1 whole, speaker)", neighbours=0.4, window=2, session=0.3, in_window=50, whole=1, speaker=0.2
    ),
    Variant("lift in 50 only (no session whole)", neighbours=0.4, window=2, session=0.3, in_window=50),
    Variant("lift in 100", neighbours=0.4, window=2, session=0.3, in_window=100),
    Variant("lift in 150", neighbours=0.4, window=2, session=0.3, in_window=150),
    Variant("lift in 50, 1 session whole", neighbours=0.4, window=2, session=0.3, in_window=50, whole=1),
    Variant("lift in 50, 2 sessions whole", neighbours=0.4, window=2, session=0.3, in_window=50, whole=2),
    Variant("lift in 50, 3 sessions whole", neighbours=0.4, window=2, session=0.3, in_window=50, whole=3),
    Variant("lift in 50, 5 sessions whole", neighbours=0.4, window=2, session=0.3, in_window=50, whole=5),
    Variant("lift in 100, 3 sessions whole", neighbours=0.4, window=2, session=0.3, in_window=100, whole=3),
    Variant("  ... speaker 0.1", neighbours=0.4, window=2, session=0.3, in_window=50, whole=1, speaker=0.1),
    Variant("  ... speaker 0.3", neighbours=0.4, window=2, session=0.3, in_window=50, whole=1, speaker=0.3),
    Variant("50, 3 whole + speaker", neighbours=0.4, window=2, session=0.3, in_window=50, whole=3, speaker=0.2),
    Variant("lift in 100 + speaker", neighbours=0.4, window=2, session=0.3, in_window=100, speaker=0.2),
    Variant("lift in 50 + speaker", neighbours=0.4, window=2, session=0.3, in_window=50, speaker=0.2),
    Variant("+ neighbours 0.4 (±1)", neighbours=0.4),
    Variant("+ neighbours 0.4 (±2)", neighbours=0.4, window=2),
    Variant("+ session 0.3", session=0.3),
    Variant("+ speaker 0.2", speaker=0.2),
    Variant("+ feedback 0.3", feedback=0.3),
    Variant("neighbours ±2 + session", neighbours=0.4, window=2, session=0.3),
    Variant("neighbours ±2 + session + speaker", neighbours=0.4, window=2, session=0.3, speaker=0.2),
    Variant("all four", neighbours=0.4, window=2, session=0.3, speaker=0.2, feedback=0.3),
]


def evaluate(lab: Lab, variant: Variant, samples: Sequence[str]) -> str:
    ranked = variant.ranker(lab)
    rows: dict[int, list[list[float]]] = defaultdict(list)
    for index, question in enumerate(lab.questions):
        if question.sample_id in samples:
            found = ranked(index)
            rows[question.category].append(
                [len(set(question.evidence) & set(found[:k])) / len(question.evidence) for k in KS]
            )
    every = [row for group in rows.values() for row in group]
    mean = lambda group: [sum(r[i] for r in group) / len(group) for i in range(len(KS))]  # noqa: E731
    overall = " ".join(f"{value:.3f}" for value in mean(every))
    by_category = " ".join(f"{CATEGORIES[c][:6]} {mean(rows[c])[3]:.3f}" for c in sorted(rows))
    return f"{variant.name:36} {overall}   R@25: {by_category}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "lore-recall-lab.npz")
    args = parser.parse_args()
    lab = load(args.data, args.cache)
    for part, samples in PARTS.items():
        print(f"\n{part} ({', '.join(samples)}){'':14}R@1   R@5   R@10  R@25")
        for variant in VARIANTS:
            print(evaluate(lab, variant, samples), flush=True)


if __name__ == "__main__":
    main()
