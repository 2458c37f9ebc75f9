"""Operating the background job queue: the org's jobs listed, dead-lettered jobs back into the queue
once their cause is fixed."""

from __future__ import annotations

from collections.abc import Sequence

from lore_runtime.errors import InvalidArgument
from lore_runtime.page_tokens import PageTokens, fingerprint

from agent_svc.domain.jobs import KINDS, STATES, JobRecord
from agent_svc.usecases.job_ports import JobQueueAdmin
from agent_svc.usecases.sessions import page_size


async def retry_jobs(org_id: str, kinds: Sequence[str], queue: JobQueueAdmin) -> tuple[int, int]:
    """Requeue the org's dead jobs of ``kinds`` (every kind when empty): (requeued, left dead)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise InvalidArgument("kinds", f"unknown job kinds {unknown}; the kinds are {list(KINDS)}")
    return await queue.retry_dead(org_id, list(kinds) or list(KINDS))


async def list_jobs(
    org_id: str, kind: str, state: str, size: int, token: str, *, queue: JobQueueAdmin, tokens: PageTokens
) -> tuple[list[JobRecord], str]:
    """The org's jobs, newest first, keyset by the queue's id (each job once across pages; one that
    finishes between two pages leaves the queue and the listing); the token is bound to the filters."""
    if kind and kind not in KINDS:
        raise InvalidArgument("kind", f"unknown job kind {kind!r}; the kinds are {list(KINDS)} (empty: every kind)")
    if state and state not in STATES:
        raise InvalidArgument(
            "state", f"unknown job state {state!r}; the states are {list(STATES)} (empty: every state)"
        )
    limit = page_size(size)
    filters = fingerprint(kind, state)
    before = _id_cursor(tokens.open(token, org_id, "jobs", filters)) if token else None
    found = await queue.jobs(org_id, kind, state, limit + 1, before)
    page = found[:limit]
    return page, (tokens.seal(org_id, "jobs", filters, {"i": page[-1].id}) if len(found) > limit else "")


def _id_cursor(position: dict[str, object]) -> int:
    job_id = position.get("i")
    if not isinstance(job_id, int) or isinstance(job_id, bool) or job_id < 1:
        raise InvalidArgument("page_token", "is not a page token this service issued")
    return job_id
