"""A realistic conversation → an episode with decisions, action items, open threads, next questions."""

from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules import RuleExtractor

CONVERSATION = [
    Utterance("user", "Hi! I want to migrate our billing database from MySQL to Postgres.", "t1"),
    Utterance("assistant", "Happy to help. How large is the billing database?", "t2"),
    Utterance("user", "About 200 GB. I'm worried about downtime.", "t3"),
    Utterance("assistant", "I'd recommend using logical replication so the cutover takes minutes.", "t4"),
    Utterance("user", "Yes, let's do that.", "t5"),
    Utterance("assistant", "Great. First, create the schema on Postgres, then start the replication.", "t6"),
    Utterance("user", "We decided to go with Postgres 16 for the Atlas project.", "t7"),
    Utterance("assistant", "Good choice. Postgres 16 has better logical replication.", "t8"),
    Utterance("user", "How do we handle the MySQL enum columns?", "t9"),
    Utterance("assistant", "I'm not sure, let me check and get back to you.", "t10"),
    Utterance("user", "I'll send the report Friday.", "t11"),
    Utterance("assistant", "Thanks. I will review the replication plan tomorrow.", "t12"),
    Utterance(
        "user", "I didn't know that Postgres 16 could replicate from MySQL directly. Thanks, really helpful!", "t13"
    ),
    Utterance("user", "What about the foreign keys?", "t14"),
]


async def test_episode_of_a_migration_conversation() -> None:
    episode = await RuleExtractor().summarise(CONVERSATION)
    assert episode.decisions == (
        "Decided: use logical replication so the cutover takes minutes.",
        "Decided: go with Postgres 16 for the Atlas project.",
    )
    assert [(a.owner, a.task, a.deadline) for a in episode.action_items] == [
        ("assistant", "check and get back to you", ""),
        ("user", "send the report", "Friday"),
        ("assistant", "review the replication plan", "tomorrow"),
    ]
    topics = [t.topic for t in episode.open_threads]
    assert "How do we handle the MySQL enum columns?" in topics
    assert "What about the foreign keys?" in topics
    assert "How large is the billing database?" not in topics
    assert "send the report" in topics
    assert 'Do you still need an answer to "What about the foreign keys?"' in episode.next_session_questions
    assert "Did you send the report (Friday)?" in episode.next_session_questions
    assert ("learning", "Learned: Postgres 16 could replicate from MySQL directly.") in [
        (o.type, o.content) for o in episode.outcomes
    ]
    assert "postgres" in episode.key_topics and episode.user_state.focus == episode.key_topics[0]
    assert episode.entities[:2] == ("postgres", "mysql")
    assert episode.user_state.mood in {"grateful", "anxious"}
    assert 0.3 <= episode.importance <= 0.9 and episode.importance > 0.6
    assert 0 < len(episode.summary) <= 600 and "billing database" in episode.summary
    assert episode == await RuleExtractor().summarise(CONVERSATION)


async def test_a_finished_commitment_and_an_answered_question_are_not_open() -> None:
    turns = [
        Utterance("user", "What port does Postgres listen on?"),
        Utterance("assistant", "Postgres listens on port 5432 by default."),
        Utterance("user", "I'll send the report tomorrow."),
        Utterance("user", "Done, the report is sent."),
    ]
    episode = await RuleExtractor().summarise(turns)
    assert episode.open_threads == ()
    assert episode.next_session_questions == ()


async def test_small_talk_gives_an_empty_episode() -> None:
    episode = await RuleExtractor().summarise([Utterance("user", "hi"), Utterance("assistant", "Hello!")])
    assert episode.summary == "" and episode.decisions == () and episode.open_threads == ()


async def test_reflect_resolves_lets_do_that_and_keeps_a_rolling_summary() -> None:
    reflection = await RuleExtractor().reflect(CONVERSATION[4], CONVERSATION[:4])
    assert [m.content for m in reflection.memories] == [
        "Decided: use logical replication so the cutover takes minutes."
    ]
    assert reflection.claims[0].kind == "project_state" and reflection.claims[0].excerpt == "Yes, let's do that."
    assert 0 < len(reflection.summary) <= 600
    worried = await RuleExtractor().reflect(CONVERSATION[2], CONVERSATION[:2])
    assert worried.emotion is not None and worried.emotion.label == "anxious"
