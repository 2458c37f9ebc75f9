"""Claims: the beliefs a turn supports or denies, on stable slots."""

import pytest
from agent_svc.domain.rules.claims import extract_claims


@pytest.mark.parametrize(
    ("text", "kind", "slot", "contradicts"),
    [
        ("I'm vegetarian", "operator_preference", "diet", False),
        ("I'm not vegetarian any more.", "operator_preference", "diet", True),
        ("I prefer tea over coffee.", "operator_preference", "drink", False),
        ("Actually I prefer coffee now.", "operator_preference", "drink", False),
        ("I'd rather use Postgres.", "operator_preference", "database", False),
        ("My favourite editor is Neovim.", "operator_preference", "editor", False),
        ("I hate spam calls.", "operator_preference", "spam_calls", False),
        ("I hate Java.", "operator_preference", "java", False),
        ("Please don't call me before 9am.", "operator_preference", "contact_time", False),
        ("I live in Lisbon.", "world_fact", "home_city", False),
        ("I no longer live in Paris.", "world_fact", "home_city", True),
        ("My daughter is called Ana.", "relationship_fact", "family:daughter", False),
        ("we decided to go with Postgres", "project_state", "database", False),
        ("Let's go with option B.", "project_state", "go_with_option_b", False),
    ],
)
def test_claim_kind_slot_and_denial(text: str, kind: str, slot: str, contradicts: bool) -> None:
    (claim,) = extract_claims(text, "user")
    assert (claim.kind, claim.slot, claim.contradicts) == (kind, slot, contradicts)
    assert claim.excerpt in text
    assert claim.summary.startswith(("The user", "Decided"))


def test_work_gives_employer_and_job_with_the_exact_words() -> None:
    claims = extract_claims("Oh, I work at Acme as a nurse.", "user")
    assert [(c.kind, c.slot, c.summary) for c in claims] == [
        ("relationship_fact", "employer", "The user works at Acme."),
        ("world_fact", "job", "The user works as a nurse."),
    ]
    assert all(c.excerpt == "Oh, I work at Acme as a nurse." for c in claims)


def test_a_decision_about_a_named_project_is_about_the_project() -> None:
    (claim,) = extract_claims("We decided to use Postgres for the Atlas project.", "user")
    assert (claim.subject_type, claim.subject_id, claim.slot) == ("project", "atlas", "database")


def test_commitments_opinions_and_assistant_facts_are_not_beliefs() -> None:
    assert extract_claims("I'll send the report Friday.", "user") == ()
    assert extract_claims("I think you should use Postgres.", "assistant") == ()
    assert extract_claims("I'm vegetarian.", "assistant") == ()
