"""Operating the background job queue: dead-lettered jobs back into the queue once their cause is fixed."""

from __future__ import annotations

from collections.abc import Sequence

from lore_runtime.errors import InvalidArgument

from agent_svc.domain.jobs import KINDS
from agent_svc.usecases.job_ports import JobQueueAdmin


async def retry_jobs(org_id: str, kinds: Sequence[str], queue: JobQueueAdmin) -> tuple[int, int]:
    """Requeue the org's dead jobs of ``kinds`` (every kind when empty): (requeued, left dead)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise InvalidArgument("kinds", f"unknown job kinds {unknown}; the kinds are {list(KINDS)}")
    return await queue.retry_dead(org_id, list(kinds) or list(KINDS))
