"""Observe, Confirm and Contradict: every change of belief in one transaction, serialised per key.

A non-empty request id makes each of them replayable: under the key's lock, a request id that
already committed returns the observation it produced (as it is now) and its outcome, and
writes nothing; otherwise the request id is recorded in the same transaction as the change.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from lore_embeddings import Embedder
from lore_runtime.clock import Clock
from lore_runtime.errors import FailedPrecondition, NotFound

from observations_svc.domain import beliefs
from observations_svc.domain.confidence import OPERATOR_WEIGHT
from observations_svc.domain.keys import canonical_key
from observations_svc.domain.model import CURRENT_STATUSES, BeliefScope, Candidate, EvidenceDraft, Observation
from observations_svc.usecases.ports import AppliedRequest, ObservationStore, ObservationTransaction

CREATED, SUPPORTED, CONTRADICTED, SUPERSEDED = "created", "supported", "contradicted", "superseded"


def embedding_text(summary: str, detail: str) -> str:
    return f"{summary}\n{detail}".strip()


def _against(drafts: Sequence[EvidenceDraft]) -> list[EvidenceDraft]:
    """What a challenger (another claim on the key) says of the incumbent: its support and its own
    contradicting lines both contradict it, its context stays context. Dropping the contradicting
    lines left a spoken denial ("not vegetarian any more") with no effect while the outcome said
    CONTRADICTED."""
    return [replace(item, stance="contradict") for item in drafts if item.stance in ("support", "contradict")] + [
        item for item in drafts if item.stance == "context"
    ]


async def _reassess(tx: ObservationTransaction, observation: Observation, now: datetime) -> Observation:
    fresh = await tx.load(observation.id)
    assert fresh is not None  # loaded under the key lock in this transaction
    updated = beliefs.reassessed(fresh, now, keep_status=fresh.status == "superseded")
    await tx.save_assessment(updated)
    return updated


async def _create(
    tx: ObservationTransaction,
    org_id: str,
    scope: BeliefScope,
    key: str,
    candidate: Candidate,
    embedding: Sequence[float],
    now: datetime,
    supersedes: str | None,
    unattributed: bool = False,
) -> Observation:
    verdict = beliefs.assess(candidate.kind, list(candidate.evidence), now, now)
    observation = Observation(
        id=str(uuid.uuid4()),
        org_id=org_id,
        agent_id=scope.agent_id,
        user_id=scope.user_id,
        team_id=scope.team_id,
        kind=candidate.kind,
        subject_type=candidate.subject_type,
        subject_id=candidate.subject_id,
        slot=candidate.slot,
        canonical_key=key,
        summary=candidate.summary,
        detail=candidate.detail,
        tags=candidate.tags,
        **verdict.measures(),
        # A new claim is the current belief even when its own evidence is thin.
        status="active",
        supersedes_observation_id=supersedes,
        created_at=now,
        updated_at=now,
        unattributed=unattributed,
    )
    await tx.insert(observation, embedding)
    evidence = await tx.add_evidence(observation.id, candidate.evidence, now)
    return replace(observation, evidence=tuple(evidence))


async def _challenge(
    tx: ObservationTransaction,
    current: Observation,
    challenger: Candidate,
    embedding: Sequence[float] | None,
    now: datetime,
) -> tuple[Observation, str]:
    """Record the challenger against the current belief; supersede it when the challenger wins."""
    await tx.add_evidence(current.id, _against(challenger.evidence), now)
    contested = await _reassess(tx, current, now)
    supported = any(item.stance == "support" for item in challenger.evidence)
    # A challenger with no support of its own (a bare denial) cannot become the belief: the incumbent
    # carries the contradiction, and is invalidated once it outweighs the support (``_reassess``).
    if embedding is None or not supported or not beliefs.challenger_wins(contested.components, contested.freshness):
        return contested, CONTRADICTED
    await tx.save_assessment(replace(contested, status="superseded"))
    successor = await _create(
        tx,
        current.org_id,
        current.scope,
        current.canonical_key,
        # Its contradicting lines were about the incumbent, recorded there: the successor keeps the rest.
        replace(challenger, evidence=tuple(item for item in challenger.evidence if item.stance != "contradict")),
        embedding,
        now,
        current.id,
        # A correction of a belief nobody can be attributed stays out of contexts like its predecessor.
        unattributed=current.unattributed,
    )
    return successor, SUPERSEDED


async def _replayed(tx: ObservationTransaction, request_id: str) -> tuple[Observation, str] | None:
    """What the committed call with ``request_id`` produced, as it is now; None for a new request."""
    applied = await tx.applied(request_id) if request_id else None
    if applied is None:
        return None
    observation = await tx.load(applied.observation_id)
    if observation is None:
        raise NotFound(
            f"request {request_id} was applied to an observation since erased", reason="OBSERVATION_NOT_FOUND"
        )
    return observation, applied.outcome


async def _record(
    tx: ObservationTransaction, request_id: str, method: str, result: tuple[Observation, str], now: datetime
) -> tuple[Observation, str]:
    if request_id:
        await tx.record_applied(request_id, method, AppliedRequest(result[0].id, result[1]), now)
    return result


async def observe(
    org_id: str,
    scope: BeliefScope,
    candidate: Candidate,
    request_id: str = "",
    *,
    store: ObservationStore,
    embedder: Embedder,
    clock: Clock,
) -> tuple[Observation, str]:
    """``scope``: whose belief (agent, user, team); the scope's current belief of the key is the one
    supported, contradicted or superseded — another user's belief of the same key is another belief."""
    key = canonical_key(candidate.subject_type, candidate.subject_id, candidate.kind, candidate.slot)
    text = embedding_text(candidate.summary, candidate.detail)
    # A repeated claim only adds evidence and needs no vector, and the model is the dearest step
    # of an Observe: an unlocked look at the current summary decides whether to embed, before the
    # transaction so no lock waits on the model. Should a writer change the key in between, the
    # vector is computed under the lock instead.
    seen = await store.current_summary(org_id, scope, key)
    embedding = (
        None if seen is not None and beliefs.same_claim(seen, candidate.summary) else await _embed(embedder, text)
    )
    now = clock.now()
    async with store.transaction(org_id) as tx:
        await tx.lock_key(scope, key)
        replay = await _replayed(tx, request_id)
        if replay is not None:
            return replay
        current = await tx.current(scope, key)
        if current is not None and beliefs.same_claim(current.summary, candidate.summary):
            await tx.add_evidence(current.id, candidate.evidence, now)
            result = await _reassess(tx, current, now), SUPPORTED
        else:
            embedding = embedding if embedding is not None else await _embed(embedder, text)
            if current is None:
                result = await _create(tx, org_id, scope, key, candidate, embedding, now, None), CREATED
            else:
                result = await _challenge(tx, current, candidate, embedding, now)
        return await _record(tx, request_id, "observe", result, now)


async def _embed(embedder: Embedder, text: str) -> list[float]:
    [vector] = await embedder.embed([text])
    return list(vector)


async def _lock(tx: ObservationTransaction, observation_id: str) -> Observation:
    """The observation, loaded again once its key is locked."""
    found = await tx.load(observation_id)
    if found is None:
        raise NotFound(f"observation {observation_id} not found", reason="OBSERVATION_NOT_FOUND")
    await tx.lock_key(found.scope, found.canonical_key)
    found = await tx.load(observation_id)
    assert found is not None  # observations are never deleted outside erasure
    return found


def _require_current(found: Observation) -> Observation:
    observation_id = found.id
    if found.status not in CURRENT_STATUSES:
        raise FailedPrecondition(
            f"observation {observation_id} is {found.status}: only a current belief takes feedback",
            reason="OBSERVATION_NOT_CURRENT",
            metadata={"status": found.status},
        )
    return found


async def confirm(
    org_id: str,
    observation_id: str,
    operator: str,
    note: str,
    request_id: str = "",
    *,
    store: ObservationStore,
    clock: Clock,
) -> Observation:
    """An operator's confirmation is supporting evidence from the operator (an entity, by name)."""
    now = clock.now()
    draft = EvidenceDraft("support", OPERATOR_WEIGHT, "entity", operator, note, now, operator_confirmed=True)
    async with store.transaction(org_id) as tx:
        locked = await _lock(tx, observation_id)
        replay = await _replayed(tx, request_id)
        if replay is not None:
            return replay[0]
        current = _require_current(locked)
        await tx.add_evidence(current.id, [draft], now)
        result = await _reassess(tx, current, now), SUPPORTED
        return (await _record(tx, request_id, "confirm", result, now))[0]


async def contradict(
    org_id: str,
    observation_id: str,
    evidence: EvidenceDraft,
    correction: str,
    request_id: str = "",
    *,
    store: ObservationStore,
    embedder: Embedder,
    clock: Clock,
) -> tuple[Observation, str]:
    """Contradicting evidence is kept; with a correction that wins, the correction supersedes the
    belief, otherwise a belief whose contradiction outweighs its support is invalidated."""
    embedding = await _embed(embedder, embedding_text(correction, "")) if correction else None
    now = clock.now()
    async with store.transaction(org_id) as tx:
        locked = await _lock(tx, observation_id)
        replay = await _replayed(tx, request_id)
        if replay is not None:
            return replay
        current = _require_current(locked)
        if correction and not beliefs.same_claim(correction, current.summary):
            challenger = Candidate(
                current.kind,
                current.subject_type,
                current.subject_id,
                current.slot,
                correction,
                "",
                current.tags,
                (replace(evidence, stance="support"),),
            )
            result = await _challenge(tx, current, challenger, embedding, now)
        else:
            await tx.add_evidence(current.id, [replace(evidence, stance="contradict")], now)
            result = await _reassess(tx, current, now), CONTRADICTED
        return await _record(tx, request_id, "contradict", result, now)
