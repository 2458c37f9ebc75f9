"""Extractive summary (budget, order, determinism) and keyphrases; plans."""

from agent_svc.domain.rules.plan import extract_plan
from agent_svc.domain.rules.summary import keyphrases, summarise

TURNS = [
    ("user", "Hi! I want to migrate our billing database from MySQL to Postgres."),
    ("assistant", "Sure. The migration needs a schema dump and a data copy. Postgres handles JSON well."),
    ("user", "The billing database is about 200 GB. Downtime must be short."),
    ("assistant", "For a short downtime, use logical replication into Postgres."),
    ("user", "Thanks!"),
]


def test_summary_respects_the_budget_and_keeps_the_original_order() -> None:
    summary = summarise(TURNS, budget=200)
    assert 0 < len(summary) <= 200
    assert "billing database" in summary
    positions = [summary.find(s) for s in ("Downtime must be short", "logical replication") if s in summary]
    assert positions == sorted(positions)
    assert "Thanks" not in summary


def test_summary_is_deterministic_and_labels_speakers() -> None:
    assert summarise(TURNS) == summarise(list(TURNS))
    assert summarise(TURNS).startswith("User: ")
    assert summarise([("user", "ok"), ("user", "thanks")]) == ""


def test_one_long_sentence_is_cut_at_a_word_boundary() -> None:
    summary = summarise([("user", "postgres replication " * 100)], budget=50)
    assert len(summary) <= 50 and summary.endswith("…")


def test_keyphrases_prefer_frequent_noun_phrases() -> None:
    phrases = keyphrases([text for _, text in TURNS], k=3)
    assert phrases[:2] == ("billing database", "postgres")
    assert len(phrases) == 3
    assert keyphrases(["hi", "thanks"]) == ()


def test_plan_goal_progress_and_next_step() -> None:
    goal = ("user", "I want to migrate our database to Postgres.")
    assert extract_plan(goal).goal == "migrate our database to Postgres"  # type: ignore[union-attr]
    step = extract_plan(("assistant", "First, dump the schema, then restore it."), [goal])
    assert step is not None and step.goal.startswith("migrate") and step.next_step == "dump the schema"
    done = extract_plan(("user", "Done with the schema dump."), [goal])
    assert done is not None and done.progress == "the schema dump"
    assert extract_plan(("user", "hello there")) is None
    assert extract_plan(("user", "Next, restore it.")) is None  # progress on nothing named
