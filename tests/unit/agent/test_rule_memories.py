"""The rule-based memory patterns, as a table: what each utterance gives, and what must give nothing."""

import pytest
from agent_svc.domain.rules.claims import extract_claims
from agent_svc.domain.rules.memories import IMPORTANCE, extract_memories

# (role, utterance, kind, words the content must contain, owner, deadline)
POSITIVES = [
    ("user", "I'm vegetarian", "preference", "The user is vegetarian.", "", ""),
    (
        "user",
        "I'll send the report Friday",
        "commitment",
        "The user will send the report (by Friday).",
        "user",
        "Friday",
    ),
    ("user", "we decided to go with Postgres", "decision", "Decided: go with Postgres.", "", ""),
    ("user", "I live in Lisbon.", "fact", "The user lives in Lisbon.", "", ""),
    ("user", "My daughter is called Ana.", "fact", "The user's daughter is called Ana.", "", ""),
    ("user", "I work at Acme as a nurse.", "fact", "The user works at Acme as a nurse.", "", ""),
    ("user", "I prefer tea over coffee.", "preference", "The user prefers tea over coffee.", "", ""),
    ("user", "I hate spam calls.", "preference", "The user hates spam calls.", "", ""),
    ("user", "I'd rather use Postgres.", "preference", "The user would rather use Postgres.", "", ""),
    (
        "user",
        "I will call you tomorrow.",
        "commitment",
        "The user will call the assistant (by tomorrow).",
        "user",
        "tomorrow",
    ),
    (
        "assistant",
        "Let me check and get back to you.",
        "commitment",
        "The assistant will check and get back to the user.",
        "assistant",
        "",
    ),
    (
        "user",
        "I promise to finish the slides by June 3.",
        "commitment",
        "The user will finish the slides (by June 3).",
        "user",
        "June 3",
    ),
    (
        "user",
        "I'll get back to you next week.",
        "commitment",
        "get back to the assistant (by next week)",
        "user",
        "next week",
    ),
    (
        "assistant",
        "I will send you the summary tonight.",
        "commitment",
        "The assistant will send the user the summary",
        "assistant",
        "tonight",
    ),
    (
        "user",
        "I'm going to book the venue before Friday.",
        "commitment",
        "book the venue (before Friday)",
        "user",
        "before Friday",
    ),
    (
        "user",
        "I need to finish the deck by Monday.",
        "commitment",
        "The user will finish the deck (by Monday).",
        "user",
        "Monday",
    ),
    (
        "user",
        "I'll email my manager end of day.",
        "commitment",
        "The user will email their manager",
        "user",
        "end of day",
    ),
    (
        "assistant",
        "I think you should use Postgres for this.",
        "opinion",
        "The assistant recommended that the user use Postgres for this.",
        "",
        "",
    ),
    (
        "assistant",
        "In my opinion, Kafka is overkill here.",
        "opinion",
        "The assistant thinks Kafka is overkill here.",
        "",
        "",
    ),
    (
        "assistant",
        "I'd recommend using Redis for the cache.",
        "opinion",
        "The assistant recommended using Redis",
        "",
        "",
    ),
    (
        "assistant",
        "I would suggest a smaller batch size.",
        "opinion",
        "The assistant recommended a smaller batch size.",
        "",
        "",
    ),
    (
        "assistant",
        "You should rotate the keys.",
        "opinion",
        "The assistant recommended that the user rotate the keys.",
        "",
        "",
    ),
    ("assistant", "I'd go with SQLite for the prototype.", "opinion", "go with SQLite for the prototype", "", ""),
    ("user", "Let's go with option B.", "decision", "Decided: go with option B.", "", ""),
    ("user", "We'll use Kafka.", "decision", "Decided: use Kafka.", "", ""),
    ("user", "I've decided to quit.", "decision", "The user decided to quit.", "", ""),
    ("assistant", "Let's use Terraform for the staging cluster.", "decision", "Decided: use Terraform", "", ""),
    ("user", "We agreed to ship on Thursday.", "decision", "Decided: ship on Thursday.", "", ""),
    ("user", "The decision is to drop MongoDB.", "decision", "Decided: drop MongoDB.", "", ""),
    ("user", "We're going with React.", "decision", "Decided: go with React.", "", ""),
    ("user", "I'm not vegetarian any more.", "preference", "The user is no longer vegetarian.", "", ""),
    ("user", "I no longer live in Paris.", "fact", "The user no longer lives in Paris.", "", ""),
    ("user", "Actually I prefer coffee now.", "preference", "The user prefers coffee.", "", ""),
    ("user", "I'm a software engineer at Google.", "fact", "The user is a software engineer at Google.", "", ""),
    ("user", "Call me Ana.", "fact", "The user's name is Ana.", "", ""),
    ("user", "My name is Maria Silva.", "fact", "The user's name is Maria Silva.", "", ""),
    ("user", "Please don't call me before 9am.", "preference", "does not want to be contacted before 9am", "", ""),
    ("user", "My favourite editor is Neovim.", "preference", "The user's favourite editor is Neovim.", "", ""),
    ("user", "I switched to Neovim.", "preference", "The user switched to Neovim.", "", ""),
    ("user", "I don't like coffee any more.", "preference", "The user no longer likes coffee.", "", ""),
    ("user", "I'm allergic to peanuts.", "fact", "The user is allergic to peanuts.", "", ""),
    ("user", "I'm from Brazil.", "fact", "The user is from Brazil.", "", ""),
    ("user", "I moved to Berlin last year.", "fact", "The user moved to Berlin.", "", ""),
    ("user", "I'm based in Toronto.", "fact", "The user lives in Toronto.", "", ""),
    ("user", "I work as a data analyst.", "fact", "The user works as a data analyst.", "", ""),
    ("user", "I love hiking.", "preference", "The user loves hiking.", "", ""),
    ("user", "I can't stand open offices.", "preference", "The user can't stand open offices.", "", ""),
    ("user", "I'm a big fan of Rust.", "preference", "The user likes Rust.", "", ""),
    ("user", "I don't eat meat.", "preference", "The user doesn't eat meat.", "", ""),
    ("user", "I have a dog called Rex.", "fact", "The user's dog is called Rex.", "", ""),
    ("user", "I'm 34 years old.", "fact", "The user is 34 years old.", "", ""),
    ("user", "Oh and by the way, I'm vegan.", "preference", "The user is vegan.", "", ""),
    ("user", "I mostly use Python.", "preference", "The user uses Python.", "", ""),
    (
        "user",
        "My sister Ana lives in Lisbon and works as an accountant.",
        "fact",
        "The user's sister Ana lives in Lisbon and works as an accountant.",
        "",
        "",
    ),
    (
        "user",
        "My cousin Leo is a firefighter in Porto.",
        "fact",
        "The user's cousin Leo is a firefighter in Porto.",
        "",
        "",
    ),
    ("user", "I have a golden retriever named Max.", "fact", "The user has a golden retriever called Max.", "", ""),
    ("user", "I have a tabby cat called Miso.", "fact", "The user has a tabby cat called Miso.", "", ""),
    ("user", "I can't eat gluten.", "preference", "The user can't eat gluten.", "", ""),
    (
        "user",
        "I'm flying to Lisbon next Friday for my cousin's wedding.",
        "fact",
        "The user is flying to Lisbon next Friday for the user's cousin's wedding.",
        "",
        "",
    ),
    ("user", "I'm heading to Porto tomorrow.", "fact", "The user is heading to Porto tomorrow.", "", ""),
    ("user", "I'm going to Paris next week.", "fact", "The user is going to Paris next week.", "", ""),
    ("user", "I cannot tolerate lactose.", "preference", "The user can't tolerate lactose.", "", ""),
    (
        "user",
        "Remind me to call the dentist on Monday.",
        "commitment",
        "The assistant will remind the user to call the dentist (by Monday).",
        "assistant",
        "Monday",
    ),
    (
        "user",
        "Please remind me to water the plants tomorrow.",
        "commitment",
        "The assistant will remind the user to water the plants (by tomorrow).",
        "assistant",
        "tomorrow",
    ),
    (
        "user",
        "Remember that my mum's birthday is on the third of June.",
        "fact",
        "The user's mother's birthday is third of June.",
        "",
        "",
    ),
]

NEGATIVES = [
    ("user", "Am I vegetarian?"),
    ("user", "Should we use Postgres?"),
    ("user", "What did I say about Friday?"),
    ("user", "If I were vegetarian I'd eat more beans."),
    ("user", "I might move to Berlin someday."),
    ("user", "My friend thinks Postgres is slow."),
    ("user", "She said she's vegetarian."),
    ("user", "Hi there!"),
    ("user", "Thanks a lot!"),
    ("assistant", "How can I help?"),
    ("assistant", "Is there anything else I can help you with?"),
    ("user", "```\nI'm vegetarian\n```"),
    ("user", 'He wrote "I will send the report Friday" in the chat.'),
    ("user", "> I live in Lisbon"),
    ("user", "ok"),
    ("user", "lol"),
    ("user", "I'm a bit tired."),
    ("user", "I'm doing well, thanks."),
    ("user", "I'm going to the shops."),
    ("user", "I love it!"),
    ("user", "Maybe I'll switch to Vim."),
    ("user", "Do you think I should use Kafka?"),
    ("user", "Nice weather today."),
    ("user", "Let me know."),
    ("user", "I think Postgres is slow."),
    ("assistant", "I live in the cloud."),
    ("user", "I won't send it."),
    ("tool", "I'll send the report Friday."),
    ("system", "I'm vegetarian."),
    ("user", "Can you remind me what we decided?"),
    ("user", ""),
    ("user", "🙂🙂🙂"),
    ("user", "Je suis végétarien."),
    ("user", "Unless I move, I live in Lisbon."),
    ("user", "Let's do that."),
]


@pytest.mark.parametrize(("role", "text", "kind", "content", "owner", "deadline"), POSITIVES)
def test_utterance_gives_the_expected_memory(
    role: str, text: str, kind: str, content: str, owner: str, deadline: str
) -> None:
    memories = extract_memories(text, role)
    assert len(memories) == 1, memories
    memory = memories[0]
    assert memory.kind == kind
    assert content in memory.content
    assert memory.speaker == role
    assert memory.owner == owner
    assert memory.deadline == deadline
    assert memory.importance == IMPORTANCE[kind]


@pytest.mark.parametrize(("role", "text"), NEGATIVES)
def test_questions_hypotheticals_small_talk_and_quotes_give_nothing(role: str, text: str) -> None:
    assert extract_memories(text, role) == ()
    assert extract_claims(text, role) == ()


def test_the_table_is_large_enough() -> None:
    assert len(POSITIVES) + len(NEGATIVES) >= 70
    assert len(NEGATIVES) >= 20


def test_two_clauses_give_two_memories_in_order() -> None:
    memories = extract_memories("I'm vegan and I live in Porto.", "user")
    assert [m.content for m in memories] == ["The user is vegan.", "The user lives in Porto."]


def test_entities_are_canonical_names_and_technology_words() -> None:
    (memory,) = extract_memories("We decided to use Postgres and Kafka for the Atlas project.", "user")
    assert set(memory.entities) == {"postgres", "kafka", "atlas"}
    (fact,) = extract_memories("I work at Acme Corp as a nurse.", "user")
    assert fact.entities == ("acme corp",)


def test_facts_and_preferences_only_come_from_the_user() -> None:
    assert extract_memories("I'm vegetarian.", "assistant") == ()
    assert extract_memories("I think you should use Postgres.", "user") == ()


# Shapes that look like a fixed slot and are not: never a belief on that slot (a wrong belief is worse
# than none, and it would replace the right one).
WRONG_SLOTS = [
    ("Call me after 6pm.", "name"),
    ("Call me tomorrow morning.", "name"),
    ("Call me Monday if the build breaks.", "name"),
    ("Call me back when you can.", "name"),
    ("I'm an early riser.", "job"),
    ("I'm a picky eater, honestly.", "job"),
    ("I'm a heavy sleeper.", "job"),
    ("I'm a late riser on weekends.", "job"),
    ("I'm a big believer in testing.", "job"),
    ("I'm a night owl.", "job"),
    ("I'm a perfectionist about code reviews.", "job"),
    ("I'm a slow reader.", "job"),
]
# Not trips: a lower-case place is an errand or a verb, a weekday a meeting.
NOT_TRIPS = ["I'm going to the gym later.", "I'm going to cook dinner tonight.", "I'm going to Monday's meeting."]


WRONG_CONTENT = {"name": "The user's name is", "job": ("The user is a ", "The user is an ")}


@pytest.mark.parametrize(("text", "slot"), WRONG_SLOTS)
def test_a_shape_that_only_looks_like_a_slot_writes_no_belief_on_it(text: str, slot: str) -> None:
    assert slot not in {claim.slot for claim in extract_claims(text, "user")}
    assert not [memory for memory in extract_memories(text, "user") if memory.content.startswith(WRONG_CONTENT[slot])]


def test_a_real_name_and_a_real_job_still_land_on_their_slots() -> None:
    assert {claim.slot for claim in extract_claims("You can call me Ana Lima.", "user")} == {"name"}
    assert {claim.slot for claim in extract_claims("I'm a nurse at Saint Mary's.", "user")} >= {"job"}


@pytest.mark.parametrize("text", NOT_TRIPS)
def test_an_errand_or_a_meeting_is_no_trip(text: str) -> None:
    assert not [memory for memory in extract_memories(text, "user") if memory.kind == "fact"]
