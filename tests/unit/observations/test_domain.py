"""Pure rules of observations: canonical keys, confidence, freshness, supersession, revalidation."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lore_runtime.errors import InvalidArgument
from lore_runtime.page_tokens import PageTokens
from observations_svc.domain import beliefs, confidence
from observations_svc.domain.keys import canonical_key
from observations_svc.domain.model import SOURCE_TYPES, BeliefScope, EvidenceDraft
from observations_svc.domain.page_tokens import LISTING, BeliefCursor, cursor_from, filters_key, position_of
from observations_svc.usecases.ports import QueryFilters

NOW = datetime(2026, 1, 1, tzinfo=UTC)
CADENCE = timedelta(days=30)


@pytest.mark.parametrize(
    ("parts", "key"),
    [
        (("entity", "user-42", "operator_preference", "database"), "entity:user-42:operator_preference:database"),
        (("project", "callscrub", "project_state", "launch"), "project:callscrub:project_state:launch"),
        (("tool", "telegram", "tooling_state", "mode"), "tool:telegram:tooling_state:mode"),
        (("agent", "self", "self_model", "recall_bias"), "agent:self:self_model:recall_bias"),
        (("global", "", "world_fact", "moon.phase"), "global:world_fact:moon.phase"),
    ],
)
def test_canonical_keys_follow_the_documented_formats(parts, key):
    assert canonical_key(*parts) == key


@pytest.mark.parametrize(
    ("parts", "field"),
    [
        (("entity", "user-42", "operator_preference", "Database"), "slot"),
        (("entity", "user-42", "operator_preference", ""), "slot"),
        (("entity", "user-42", "operator_preference", "a b"), "slot"),
        (("entity", "", "operator_preference", "db"), "subject_id"),
        (("entity", "a:b", "operator_preference", "db"), "subject_id"),
        (("global", "x", "world_fact", "db"), "subject_id"),
        (("planet", "x", "world_fact", "db"), "subject_type"),
        (("entity", "x", "gossip", "db"), "kind"),
    ],
)
def test_malformed_key_parts_name_their_field(parts, field):
    with pytest.raises(InvalidArgument) as raised:
        canonical_key(*parts)
    assert raised.value.field == field


@given(
    st.from_regex(r"[a-z0-9_.-]{1,64}", fullmatch=True), st.from_regex(r"[a-z0-9][a-z0-9._@/-]{0,20}", fullmatch=True)
)
def test_keys_are_deterministic_and_split_back_into_their_parts(slot, subject_id):
    key = canonical_key("entity", subject_id, "world_fact", slot)
    assert key == canonical_key("entity", subject_id, "world_fact", slot)
    assert key.split(":") == ["entity", subject_id, "world_fact", slot]


evidence_items = st.builds(
    EvidenceDraft,
    stance=st.sampled_from(["support", "contradict", "context"]),
    weight=st.floats(min_value=0.01, max_value=10),
    source_type=st.sampled_from(SOURCE_TYPES),
    source_id=st.sampled_from(["a", "b", "c", "d"]),
    excerpt=st.just(""),
    observed_at=st.integers(min_value=0, max_value=400).map(lambda days: NOW - timedelta(days=days)),
    operator_confirmed=st.booleans(),
)


def _score(items) -> float:
    return confidence.composite(confidence.components(items, NOW, CADENCE))


@given(st.lists(evidence_items, max_size=12), evidence_items)
def test_more_support_never_lowers_confidence(items, extra):
    support = EvidenceDraft(
        "support", extra.weight, extra.source_type, extra.source_id, "", extra.observed_at, extra.operator_confirmed
    )
    assert _score([*items, support]) >= _score(items) - 1e-12


@given(st.lists(evidence_items, max_size=12), evidence_items)
def test_contradiction_never_raises_confidence(items, extra):
    against = EvidenceDraft("contradict", extra.weight, extra.source_type, extra.source_id, "", extra.observed_at)
    assert _score([*items, against]) <= _score(items) + 1e-12


@given(st.lists(evidence_items, max_size=12))
def test_confidence_stays_in_the_unit_interval(items):
    assert 0.0 <= _score(items) <= 1.0


def test_count_has_diminishing_returns():
    def support(n):
        return [EvidenceDraft("support", 1.0, "message", f"t-{i}", "", NOW) for i in range(n)]

    gains = [_score(support(n + 1)) - _score(support(n)) for n in range(1, 6)]
    assert all(later < earlier for earlier, later in itertools.pairwise(gains))


def test_freshness_halves_each_cadence_and_marks_stale_past_due():
    item = EvidenceDraft("support", 1.0, "message", "t", "", NOW - timedelta(days=31))
    verdict = beliefs.assess("operator_preference", [item], NOW - timedelta(days=40), NOW)
    assert verdict.freshness == pytest.approx(0.5 ** (31 / 30))
    assert verdict.status == "stale"
    assert verdict.revalidation_due_at == item.observed_at + CADENCE
    fresh = beliefs.assess("tooling_state", [item], NOW, item.observed_at + timedelta(days=1))
    assert fresh.status == "active"


def test_invalidated_when_contradiction_outweighs_support():
    items = [
        EvidenceDraft("support", 1.0, "message", "t1", "", NOW),
        EvidenceDraft("contradict", 1.5, "message", "t2", "", NOW),
    ]
    assert beliefs.assess("world_fact", items, NOW, NOW).status == "invalidated"


def test_same_claim_ignores_case_spacing_and_final_punctuation():
    assert beliefs.same_claim("Prefers  Postgres.", "prefers postgres")
    assert not beliefs.same_claim("prefers Postgres", "prefers MySQL")


def test_a_challenger_wins_when_contradiction_reaches_support_or_the_belief_is_stale():
    strong = confidence.components([EvidenceDraft("support", 3.0, "message", "t", "", NOW)], NOW, CADENCE)
    assert not beliefs.challenger_wins(strong, 1.0)
    assert beliefs.challenger_wins(strong, 0.4)
    tied = confidence.components(
        [
            EvidenceDraft("support", 1.0, "message", "t", "", NOW),
            EvidenceDraft("contradict", 1.0, "message", "u", "", NOW),
        ],
        NOW,
        CADENCE,
    )
    assert beliefs.challenger_wins(tied, 1.0)


def test_a_belief_page_position_is_bound_to_its_filters_and_its_generation():
    tokens = PageTokens([b"key"])
    key = filters_key(QueryFilters(kind="world_fact"))
    observation_id = "6f1d2a4e-7b10-4c59-9a53-9b2f8c1e5d0a"
    token = tokens.seal("acme", LISTING, key, position_of(0.75, 0.5, observation_id, 3))
    assert cursor_from(tokens.open(token, "acme", LISTING, key), 3) == BeliefCursor(0.75, 0.5, observation_id)
    with pytest.raises(InvalidArgument, match="revalidation"):
        cursor_from(tokens.open(token, "acme", LISTING, key), 4)
    for other in (QueryFilters(kind="self_model"), QueryFilters(kind="world_fact", user_id="ana"), QueryFilters()):
        with pytest.raises(InvalidArgument):
            tokens.open(token, "acme", LISTING, filters_key(other))
    for forged in ("garbage", token + "x", tokens.seal("acme", LISTING, key, {"c": "high"})):
        with pytest.raises(InvalidArgument):
            cursor_from(tokens.open(forged, "acme", LISTING, key), 3)


@pytest.mark.parametrize(
    ("context", "belief", "shown"),
    [
        (("aria", "ana", ""), ("aria", "ana", ""), True),
        (("aria", "ana", ""), ("aria", "", ""), True),  # the org's, for every user
        (("aria", "ana", ""), ("", "", ""), True),  # no agent: every agent's
        (("aria", "ana", ""), ("aria", "bo", ""), False),  # another user's, never
        (("aria", "", ""), ("aria", "ana", ""), False),  # no user: only beliefs of no user
        (("aria", "ana", ""), ("aria", "ana", "team-1"), False),  # no team: only beliefs of no team
        (("aria", "ana", "team-1"), ("aria", "", "team-1"), True),
        (("aria", "ana", "team-1"), ("aria", "ana", "team-2"), False),
        (("aria", "ana", ""), ("other", "ana", ""), False),  # another agent's
        (("", "ana", ""), ("other", "ana", ""), True),  # a context naming no agent sees any agent's
    ],
)
def test_a_context_shows_the_users_and_the_orgs_beliefs_never_another_users(context, belief, shown):
    assert BeliefScope(*context).shows(BeliefScope(*belief)) is shown
