"""The invariants of ARCHITECTURE.md §4, enforced by the database itself: direct SQL run as the
service's own role (``lore_app``) cannot break them. Only ``erase_subject`` gets around them."""

import uuid
from datetime import UTC, datetime

import asyncpg
import pytest
from pgvector.asyncpg import register_vector

NOW = datetime(2026, 1, 1, tzinfo=UTC)
REFUSED = (asyncpg.IntegrityConstraintViolationError, asyncpg.InsufficientPrivilegeError)


@pytest.fixture
async def app(migrated_pg):
    connection = await asyncpg.connect(migrated_pg.app_dsn)
    await register_vector(connection)
    try:
        yield connection
    finally:
        await connection.close()


async def _as(connection: asyncpg.Connection, org_id: str) -> None:
    await connection.execute("SELECT set_config('lore.org_id', $1, false)", org_id)


async def _insert_observation(
    connection: asyncpg.Connection,
    org_id: str,
    *,
    subject_id: str = "user-42",
    slot: str = "database",
    status: str = "active",
    supersedes: uuid.UUID | None = None,
    summary: str = "prefers Postgres",
    user_id: str = "",
    team_id: str = "",
    unattributed: bool = False,
) -> uuid.UUID:
    observation_id = uuid.uuid4()
    await connection.execute(
        """
        INSERT INTO observations.observations
            (id, org_id, agent_id, kind, subject_type, subject_id, slot, canonical_key, summary, confidence,
             confidence_components, freshness, last_supported_at, revalidation_due_at, status,
             supersedes_observation_id, embedding, created_at, updated_at, user_id, team_id, unattributed)
        VALUES ($1, $2, 'agent-1', 'operator_preference', 'entity', $3, $4,
                'entity:' || $3 || ':operator_preference:' || $4, $5, 0.5, '{}', 1.0, $6, $6, $7, $8, $9, $6, $6,
                $10, $11, $12)
        """,
        observation_id,
        org_id,
        subject_id,
        slot,
        summary,
        NOW,
        status,
        supersedes,
        [0.1] * 384,
        user_id,
        team_id,
        unattributed,
    )
    return observation_id


async def _insert_evidence(
    connection: asyncpg.Connection,
    org_id: str,
    observation_id: uuid.UUID,
    *,
    stance: str = "support",
    source_type: str = "message",
    source_id: str = "turn-1",
    weight: float = 1.0,
) -> uuid.UUID:
    evidence_id = uuid.uuid4()
    await connection.execute(
        """
        INSERT INTO observations.evidence
            (id, org_id, observation_id, stance, weight, source_type, source_id, observed_at, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
        """,
        evidence_id,
        org_id,
        observation_id,
        stance,
        weight,
        source_type,
        source_id,
        NOW,
    )
    return evidence_id


async def test_the_service_role_is_not_the_owner_and_rls_hides_other_orgs(app, org_id):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    await _as(app, "org-someone-else")
    assert await app.fetchval("SELECT count(*) FROM observations.observations WHERE id = $1", observation_id) == 0
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await _insert_observation(app, org_id, slot="other")


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("summary", "'prefers MySQL'"),
        ("kind", "'world_fact'"),
        ("subject_id", "'user-43'"),
        ("canonical_key", "'entity:user-43:operator_preference:database'"),
        ("agent_id", "'agent-2'"),
        ("user_id", "'user-43'"),
        ("team_id", "'team-2'"),
        ("unattributed", "true"),
        ("supersedes_observation_id", "gen_random_uuid()"),
    ],
)
async def test_identity_subject_key_and_summary_are_never_updated(app, org_id, column, value):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    with pytest.raises((*REFUSED, asyncpg.ForeignKeyViolationError)):
        await app.execute(f"UPDATE observations.observations SET {column} = {value} WHERE id = $1", observation_id)
    assert await app.fetchval("SELECT summary FROM observations.observations WHERE id = $1", observation_id) == (
        "prefers Postgres"
    )


async def test_the_org_of_a_row_is_never_updated(app, org_id):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    with pytest.raises(REFUSED):
        await app.execute("UPDATE observations.observations SET org_id = 'org-other' WHERE id = $1", observation_id)


async def test_observations_are_never_deleted(app, org_id):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    with pytest.raises(REFUSED):
        await app.execute("DELETE FROM observations.observations WHERE id = $1", observation_id)
    assert await app.fetchval("SELECT count(*) FROM observations.observations WHERE id = $1", observation_id) == 1


async def test_superseded_is_terminal(app, org_id):
    await _as(app, org_id)
    old = await _insert_observation(app, org_id, status="superseded")
    with pytest.raises(REFUSED):
        await app.execute("UPDATE observations.observations SET status = 'active' WHERE id = $1", old)


async def test_one_current_observation_per_key(app, org_id):
    await _as(app, org_id)
    await _insert_observation(app, org_id)
    with pytest.raises(asyncpg.UniqueViolationError):
        await _insert_observation(app, org_id, status="stale")


async def test_the_canonical_key_must_match_its_parts(app, org_id):
    await _as(app, org_id)
    with pytest.raises(asyncpg.CheckViolationError):
        await app.execute(
            """
            INSERT INTO observations.observations
                (id, org_id, kind, subject_type, subject_id, slot, canonical_key, summary, confidence,
                 confidence_components, freshness, revalidation_due_at, status, embedding, created_at, updated_at)
            VALUES (gen_random_uuid(), $1, 'world_fact', 'global', '', 'moon', 'global:world_fact:sun', 's', 0.5,
                    '{}', 1, now(), 'active', $2, now(), now())
            """,
            org_id,
            [0.1] * 384,
        )


@pytest.mark.parametrize(
    ("column", "value"),
    [("status", "'forgotten'"), ("freshness", "1.5"), ("confidence", "-0.1")],
)
async def test_enums_and_ranges_are_checked(app, org_id, column, value):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    with pytest.raises(asyncpg.CheckViolationError):
        await app.execute(f"UPDATE observations.observations SET {column} = {value} WHERE id = $1", observation_id)


async def test_a_malformed_slot_is_refused(app, org_id):
    await _as(app, org_id)
    with pytest.raises(asyncpg.CheckViolationError):
        await _insert_observation(app, org_id, slot="Bad Slot")


async def test_a_supersession_never_crosses_orgs(app, org_id):
    await _as(app, "org-victim")
    victim = await _insert_observation(app, "org-victim")
    await _as(app, org_id)
    with pytest.raises(asyncpg.ForeignKeyViolationError):
        await _insert_observation(app, org_id, status="active", supersedes=victim)


async def test_evidence_never_points_at_an_observation(app, org_id):
    await _as(app, org_id)
    target = await _insert_observation(app, org_id)
    other = await _insert_observation(app, org_id, slot="editor")
    spellings = [str(target), str(target).upper(), f"{{{target}}}", target.hex, f" {target} "]
    for spelling in spellings:
        with pytest.raises(REFUSED):
            await _insert_evidence(app, org_id, other, source_id=spelling)
    with pytest.raises(asyncpg.CheckViolationError):
        await _insert_evidence(app, org_id, other, source_type="observation", source_id="anything")


@pytest.mark.parametrize("weight", [0.0, -1.0, 10.5])
async def test_evidence_weight_is_in_zero_to_ten(app, org_id, weight):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    with pytest.raises(asyncpg.CheckViolationError):
        await _insert_evidence(app, org_id, observation_id, weight=weight)


async def test_evidence_never_attaches_to_another_orgs_observation(app, org_id):
    await _as(app, "org-victim-2")
    victim = await _insert_observation(app, "org-victim-2")
    await _as(app, org_id)
    with pytest.raises(asyncpg.ForeignKeyViolationError):
        await _insert_evidence(app, org_id, victim)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE observations.evidence SET weight = 0.1 WHERE id = $1",
        "UPDATE observations.evidence SET stance = 'support' WHERE id = $1",
        "DELETE FROM observations.evidence WHERE id = $1",
    ],
)
async def test_contradicting_evidence_is_never_changed_or_deleted(app, org_id, statement):
    await _as(app, org_id)
    observation_id = await _insert_observation(app, org_id)
    evidence_id = await _insert_evidence(app, org_id, observation_id, stance="contradict")
    with pytest.raises(REFUSED):
        await app.execute(statement, evidence_id)
    assert await app.fetchval("SELECT stance FROM observations.evidence WHERE id = $1", evidence_id) == "contradict"


async def test_tombstones_are_written_only_by_erasure(app, org_id):
    await _as(app, org_id)
    with pytest.raises(REFUSED):
        await app.execute(
            """INSERT INTO observations.tombstones (id, org_id, subject_type, subject_id, principal,
               observations_erased, evidence_erased) VALUES (gen_random_uuid(), $1, 'entity', 'x', 'me', 0, 0)""",
            org_id,
        )


async def test_erasure_removes_a_subject_and_evidence_of_erased_sources_and_leaves_a_tombstone(app, org_id):
    await _as(app, org_id)
    old = await _insert_observation(app, org_id, subject_id="user-9", status="superseded")
    current = await _insert_observation(app, org_id, subject_id="user-9", supersedes=old, summary="prefers MySQL")
    await _insert_evidence(app, org_id, old, stance="contradict")
    await _insert_evidence(app, org_id, current)
    bystander = await _insert_observation(app, org_id, subject_id="user-10")
    await _insert_evidence(app, org_id, bystander, source_id="turn-of-user-9")
    kept = await _insert_evidence(app, org_id, bystander, source_id="turn-kept")
    row = await app.fetchrow(
        "SELECT * FROM observations.erase_subject('entity', 'user-9', ARRAY['turn-of-user-9'], 'admin', 'req-1')"
    )
    assert (row["observations_erased"], row["evidence_erased"]) == (2, 3)
    assert await app.fetchval("SELECT count(*) FROM observations.observations WHERE subject_id = 'user-9'") == 0
    assert await app.fetch("SELECT id FROM observations.evidence WHERE observation_id = $1", bystander) == [(kept,)]
    tombstone = await app.fetchrow("SELECT * FROM observations.tombstones WHERE id = $1", row["tombstone_id"])
    assert (tombstone["subject_id"], tombstone["principal"], tombstone["observations_erased"]) == ("user-9", "admin", 2)
    replay = await app.fetchrow(
        "SELECT * FROM observations.erase_subject('entity', 'user-9', ARRAY['turn-of-user-9'], 'admin', 'req-1')"
    )
    assert tuple(replay) == tuple(row)


async def test_erasure_only_reaches_the_org_of_the_transaction(app, org_id):
    await _as(app, "org-victim-3")
    victim = await _insert_observation(app, "org-victim-3", subject_id="user-1")
    await _as(app, org_id)
    row = await app.fetchrow("SELECT * FROM observations.erase_subject('entity', 'user-1', '{}', 'admin', '')")
    assert row["observations_erased"] == 0
    await _as(app, "org-victim-3")
    assert await app.fetchval("SELECT count(*) FROM observations.observations WHERE id = $1", victim) == 1


async def test_one_current_observation_per_scope_and_key_unattributed_ones_beside_it(app, org_id):
    await _as(app, org_id)
    await _insert_observation(app, org_id, user_id="ana")
    await _insert_observation(app, org_id, user_id="bo")
    await _insert_observation(app, org_id, user_id="ana", team_id="team-1")
    await _insert_observation(app, org_id, user_id="ana", unattributed=True)
    with pytest.raises(asyncpg.UniqueViolationError):
        await _insert_observation(app, org_id, user_id="ana", status="stale")


@pytest.mark.parametrize("column", ["user_id", "team_id"])
@pytest.mark.parametrize("value", [" ana", "ana\n", "a" * 129])
async def test_scope_ids_are_bounded_trimmed_and_free_of_control_characters(app, org_id, column, value):
    await _as(app, org_id)
    with pytest.raises(asyncpg.CheckViolationError):
        await _insert_observation(app, org_id, **{column: value})


async def test_erasure_of_a_user_removes_their_beliefs_of_any_subject_and_leaves_the_others(app, org_id):
    await _as(app, org_id)
    about_ana = await _insert_observation(app, org_id, subject_id="ana", user_id="ana")
    anas_project = await _insert_observation(app, org_id, subject_id="apollo", user_id="ana", slot="launch")
    bos = await _insert_observation(app, org_id, subject_id="apollo", user_id="bo", slot="launch")
    shared = await _insert_observation(app, org_id, subject_id="apollo", slot="launch")
    for observation_id in (about_ana, anas_project, bos, shared):
        await _insert_evidence(app, org_id, observation_id)

    erase = "SELECT * FROM observations.erase_subject('entity', 'ana', '{}', 'admin', $1, 'ana')"
    row = await app.fetchrow(erase, "req-user")
    replay = await app.fetchrow(erase, "req-user")
    again = await app.fetchrow(erase, "")

    assert (row["observations_erased"], row["evidence_erased"]) == (2, 2)
    assert tuple(replay) == tuple(row)
    assert (again["observations_erased"], again["evidence_erased"]) == (0, 0)
    left = await app.fetch("SELECT id FROM observations.observations WHERE org_id = $1", org_id)
    assert {record["id"] for record in left} == {bos, shared}
    assert await app.fetchval("SELECT count(*) FROM observations.evidence WHERE org_id = $1", org_id) == 2


async def test_the_lexical_search_function_applies_the_tenant_and_a_contexts_scope_itself(app, org_id):
    """SECURITY DEFINER, so no row-level security inside: the function alone keeps other orgs, other
    users and unattributed beliefs out."""
    await _as(app, "org-victim-4")
    await _insert_observation(app, "org-victim-4", user_id="ana")
    await _as(app, org_id)
    ana = await _insert_observation(app, org_id, user_id="ana")
    await _insert_observation(app, org_id, user_id="bo")
    shared = await _insert_observation(app, org_id, slot="shared")
    await _insert_observation(app, org_id, slot="old", unattributed=True)
    await _insert_observation(app, org_id, slot="team", team_id="team-1")

    async def matches(agent_id: str, user_id: str, team_id: str = "") -> set[uuid.UUID]:
        rows = await app.fetch(
            "SELECT id FROM observations.lexical_matches('postgres', $1, $2, $3, '{}', '{active}', NULL, 50)",
            agent_id,
            user_id,
            team_id,
        )
        return {row["id"] for row in rows}

    assert await matches("agent-1", "ana") == {ana, shared}
    assert await matches("", "ana") == {ana, shared}
    assert await matches("agent-2", "ana") == set()
    assert await matches("agent-1", "") == {shared}
    assert len(await matches("agent-1", "ana", "team-1")) == 3
    await app.execute("SELECT set_config('lore.org_id', '', false)")
    assert await matches("", "ana") == set()
