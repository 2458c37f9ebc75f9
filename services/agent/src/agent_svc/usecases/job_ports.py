"""What the job administration use cases need of the background job queue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agent_svc.domain.jobs import JobRecord, QueueCounts


class JobQueueAdmin(Protocol):
    async def counts(self, org_id: str) -> list[QueueCounts]:
        """The org's background jobs by kind and state (every kind, zeros included)."""
        ...

    async def retry_dead(self, org_id: str, kinds: Sequence[str]) -> tuple[int, int]:
        """Queue the org's dead jobs of ``kinds`` again with fresh attempts: (requeued, left dead
        because the same job is already waiting or running)."""
        ...

    async def jobs(self, org_id: str, kind: str, state: str, limit: int, before_id: int | None) -> list[JobRecord]:
        """The org's jobs of ``kind`` in ``state`` (either "" for every one), newest first (by id),
        at most ``limit``, those with an id below ``before_id`` when given."""
        ...
