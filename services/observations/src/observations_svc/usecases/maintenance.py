"""RunRevalidation, EraseSubject and erasure's fence (FenceSubject, LiftSubjectFence)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from lore_runtime.clock import Clock
from lore_runtime.errors import InvalidArgument

from observations_svc.domain import beliefs
from observations_svc.domain.engagement import PRIOR_WEIGHT
from observations_svc.domain.keys import validate_subject
from observations_svc.domain.model import BeliefScope
from observations_svc.usecases.ports import Erasure, ErasureRequest, ObservationStore

MAX_ERASURE_ID_CHARS = 128

REVALIDATION_BATCH = 500
# Keys an erasure locks at most (advisory locks live in a finite shared table until commit).
MAX_ERASURE_KEY_LOCKS = 256


@dataclass(frozen=True, slots=True)
class Revalidation:
    checked: int = 0
    marked_stale: int = 0
    marked_invalidated: int = 0


async def run_revalidation(org_id: str, agent_id: str, *, store: ObservationStore, clock: Clock) -> Revalidation:
    """Active beliefs past their revalidation date get fresh confidence and freshness, and become
    stale (freshness below the threshold) or invalidated (contradiction outweighs support)."""
    now = clock.now()
    checked = stale = invalidated = 0
    while ids := await store.due_for_revalidation(org_id, agent_id, now, REVALIDATION_BATCH):
        if not checked:
            # Pages listed before this run, or during it, are cut from an order it moves.
            await store.advance_order_generation(org_id)
        for observation_id in ids:
            async with store.transaction(org_id) as tx:
                found = await tx.load(observation_id)
                if found is None:
                    continue
                await tx.lock_key(found.scope, found.canonical_key)
                found = await tx.load(observation_id)
                if found is None or found.status != "active":
                    continue
                assessed = beliefs.reassessed(found, now)
                await tx.save_assessment(assessed)
            checked += 1
            stale += assessed.status == "stale"
            invalidated += assessed.status == "invalidated"
        if len(ids) < REVALIDATION_BATCH:
            break
    if checked:
        await store.advance_order_generation(org_id)
    return Revalidation(checked, stale, invalidated)


async def erase_subject(org_id: str, erasure: ErasureRequest, *, store: ObservationStore, clock: Clock) -> Erasure:
    """The subject's beliefs, and with ``user_id`` every belief scoped to that user, with their evidence;
    evidence citing ``source_ids``; every belief whose support all went with it. A belief that only
    lost part of its evidence is assessed again from the rest, in the same transaction, under its
    key's lock (so no Observe or revalidation writes numbers computed from erased evidence)."""
    if erasure.subject_type == "global":
        raise InvalidArgument("subject_type", "global is not a data subject: name an entity, project, tool or agent")
    validate_subject(erasure.subject_type, erasure.subject_id)
    async with store.transaction(org_id) as tx:
        keys = sorted(
            set(await tx.keys_citing(erasure)),
            key=lambda item: (item[0].agent_id, item[0].user_id, item[0].team_id, item[1]),
        )
        # Locks are taken in one order (no deadlock between two erasures); a huge set is not locked
        # (the lock table is finite): then only the numbers of a concurrent write can be stale.
        locking = len(keys) <= MAX_ERASURE_KEY_LOCKS
        for scope, key in keys if locking else ():
            await tx.lock_key(scope, key)
        erased = await tx.erase_subject(erasure)
        if erasure.user_id or erasure.source_ids:
            # The org's engagement state naming the user or citing the erased sources (hypotheses,
            # their lines and findings, unknowns), in the same transaction.
            engagement = await tx.erase_engagement(erasure.user_id, erasure.source_ids, PRIOR_WEIGHT)
            erased = dataclasses.replace(erased, engagement=engagement)
        now = clock.now()
        for observation_id in erased.recomputed_ids:
            found = await tx.load(observation_id)
            if found is None:
                continue
            if locking:
                await tx.lock_key(found.scope, found.canonical_key)
                found = await tx.load(observation_id)
            if found is not None:
                await tx.save_assessment(beliefs.after_erasure(found, now))
    return erased


def _erasure_id(value: str) -> str:
    if not value.strip():
        raise InvalidArgument("erasure_id", "is required")
    if len(value) > MAX_ERASURE_ID_CHARS:
        raise InvalidArgument("erasure_id", f"at most {MAX_ERASURE_ID_CHARS} characters")
    return value


async def fence_subject(org_id: str, subject: BeliefScope, erasure_id: str, *, store: ObservationStore) -> None:
    """Erasure's fence, set by the agent's erase job before its sweep (ObservationStore.fence_subject)."""
    if not (subject.user_id or subject.agent_id or subject.team_id):
        raise InvalidArgument("subject", "name a user, agent or team: an empty subject would be the whole org")
    await store.fence_subject(org_id, _erasure_id(erasure_id), subject)


async def lift_subject_fence(org_id: str, erasure_id: str, *, store: ObservationStore) -> None:
    await store.lift_subject_fence(org_id, _erasure_id(erasure_id))
