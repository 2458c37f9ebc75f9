"""Ports of the observation use cases (implemented by adapters/, faked in tests)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from observations_svc.domain.model import BeliefScope, Evidence, EvidenceDraft, Observation
from observations_svc.domain.page_tokens import BeliefCursor


@dataclass(frozen=True, slots=True)
class QueryFilters:
    """Browse: the ids given must match (an empty one matches any). ``context``: agent, user and team
    select what a context for them may show (``BeliefScope.shows``), unattributed beliefs excluded."""

    agent_id: str = ""
    user_id: str = ""
    team_id: str = ""
    context: bool = False
    kind: str = ""
    subject_type: str = ""
    subject_id: str = ""
    canonical_key: str = ""
    status: str = ""
    min_confidence: float | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Always a context's view: what ``BeliefScope(agent_id, user_id, team_id).shows``, unattributed excluded."""

    agent_id: str = ""
    user_id: str = ""
    team_id: str = ""
    kinds: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ("active",)
    min_confidence: float | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A search candidate: enough to rank it; the observation itself is read only if it makes the top k."""

    id: str
    similarity: float
    lexical: float
    confidence: float


@dataclass(frozen=True, slots=True)
class ErasureRequest:
    """What an EraseSubject asks: the subject's beliefs, and with ``user_id`` every belief scoped to
    that user, erased with the evidence citing ``source_ids``; ``principal`` and ``request_id`` go
    on the tombstone (a replayed request id returns the first answer)."""

    subject_type: str
    subject_id: str
    source_ids: tuple[str, ...]
    principal: str
    request_id: str
    user_id: str = ""


@dataclass(frozen=True, slots=True)
class Erasure:
    """What ``erase_subject`` did (a replayed request id returns the first answer): ``recomputed_ids``
    lost part of their evidence and are assessed again in the same transaction; ``shared_erased_ids``
    are erased beliefs not scoped to the erased user, which other people's contexts may have shown."""

    tombstone_id: str
    observations_erased: int
    evidence_erased: int
    recomputed_ids: tuple[str, ...] = ()
    shared_erased_ids: tuple[str, ...] = ()
    # Engagement state erased with the user (``ObservationTransaction.erase_engagement``).
    engagement: EngagementErasure | None = None


@dataclass(frozen=True, slots=True)
class EngagementErasure:
    """What erasing a user's engagement state removed, by this call."""

    hypotheses: int = 0
    evidence: int = 0
    findings: int = 0
    unknowns: int = 0


@dataclass(frozen=True, slots=True)
class AppliedRequest:
    observation_id: str
    outcome: str


class ObservationTransaction(Protocol):
    """One tenant transaction; ``lock_key`` serialises writers of one canonical key."""

    async def lock_key(self, scope: BeliefScope, canonical_key: str) -> None: ...

    async def current(self, scope: BeliefScope, canonical_key: str) -> Observation | None:
        """The scope's current (active or stale) attributed belief of the key."""
        ...

    async def load(self, observation_id: str) -> Observation | None: ...

    async def insert(self, observation: Observation, embedding: Sequence[float]) -> None: ...

    async def add_evidence(
        self, observation_id: str, drafts: Sequence[EvidenceDraft], now: datetime
    ) -> list[Evidence]: ...

    async def save_assessment(self, observation: Observation) -> None: ...

    async def applied(self, request_id: str) -> AppliedRequest | None:
        """What an earlier call with ``request_id`` did, if one committed."""
        ...

    async def record_applied(self, request_id: str, method: str, applied: AppliedRequest, now: datetime) -> None: ...

    async def keys_citing(self, erasure: ErasureRequest) -> list[tuple[BeliefScope, str]]:
        """The (scope, canonical key) of every belief outside the subject's (and the user's) whose
        evidence the erasure of its ``source_ids`` would remove: the keys to lock before it runs."""
        ...

    async def erase_engagement(self, user_id: str, source_ids: Sequence[str], prior_weight: float) -> EngagementErasure:
        """Erase the org's engagement state naming ``user_id`` or citing ``source_ids``: hypotheses whose
        text or finding does (with everything they hold), other evidence lines that do (an active
        hypothesis that lost some is recomputed with ``prior_weight``, the rule's), unknowns naming the user."""
        ...

    async def erase_subject(self, erasure: ErasureRequest) -> Erasure:
        """Erase the subject's beliefs, with ``user_id`` every belief scoped to that user, the evidence
        citing ``source_ids`` and every belief left without the support it had; leave a tombstone."""
        ...


class ObservationStore(Protocol):
    def transaction(self, org_id: str) -> AbstractAsyncContextManager[ObservationTransaction]: ...

    async def fence_subject(self, org_id: str, erasure_id: str, subject: BeliefScope) -> None:
        """Erasure's fence: until lifted, a new belief or evidence of a scope ``subject`` covers or about
        its user (or agent), and engagement state naming its user, is refused (Conflict,
        SUBJECT_ERASING). Waits for such writes under way to commit. Idempotent per erasure."""
        ...

    async def lift_subject_fence(self, org_id: str, erasure_id: str) -> None:
        """Remove the erasure's fence (idempotent)."""
        ...

    async def get(self, org_id: str, observation_id: str) -> Observation | None: ...

    async def current_summary(self, org_id: str, scope: BeliefScope, canonical_key: str) -> str | None:
        """The summary of the key's current belief, read without a lock (a hint, not a decision)."""
        ...

    async def query(
        self, org_id: str, filters: QueryFilters, after: BeliefCursor | None, limit: int
    ) -> list[Observation]:
        """Up to ``limit`` beliefs by confidence desc, freshness desc, id asc, strictly after ``after``."""
        ...

    async def order_generation(self, org_id: str) -> int:
        """The org's belief-order generation: 0 until revalidation first rewrites confidence."""
        ...

    async def advance_order_generation(self, org_id: str) -> None:
        """Revalidation is about to rewrite (or has rewritten) confidence and freshness."""
        ...

    async def search(
        self, org_id: str, text: str, vector: Sequence[float], filters: SearchFilters, limit: int
    ) -> list[SearchHit]: ...

    async def get_many(self, org_id: str, ids: Sequence[str]) -> list[Observation]:
        """The org's observations among ``ids`` (without evidence), in the order of ``ids``."""
        ...

    async def get_many_with_embeddings(
        self, org_id: str, ids: Sequence[str]
    ) -> list[tuple[Observation, tuple[float, ...]]]:
        """As ``get_many``, each with its stored embedding: unit length, of the embedder's model."""
        ...

    async def history(self, org_id: str, observation_id: str) -> list[Observation]: ...

    async def due_for_revalidation(self, org_id: str, agent_id: str, now: datetime, limit: int) -> list[str]: ...

    async def orgs_due_for_revalidation(self, now: datetime) -> list[str]: ...


class ObservationArchive(Protocol):
    """An org's observations as a whole, for ``lore org export`` / ``import`` (beside ObservationStore,
    as the memory service's MemoryCatalog, so the transfer use cases state exactly what they touch)."""

    async def get_many(self, org_id: str, ids: Sequence[str]) -> list[Observation]:
        """The org's observations among ``ids`` (without evidence), in the order of ``ids``."""
        ...

    async def export_page(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Observation]:
        """Up to ``limit`` observations of the org, every status, each with all its evidence (oldest
        first), ordered by (created_at, id) strictly after the ``after`` position: ``lore org export``."""
        ...

    async def insert_restored(
        self, org_id: str, observations: Sequence[Observation], embeddings: Sequence[Sequence[float]]
    ) -> None:
        """Insert exported ``observations`` (one embedding each) with their evidence exactly as given,
        in the order given, in one transaction: ``lore org import``. An id (of an observation or of
        evidence) that is already taken — by another org, since callers skip the org's own — raises
        AlreadyExists and writes nothing."""
        ...
