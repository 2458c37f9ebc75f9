"""Daily digests (the scheduled job): for every scope that had a session on a day, a digest of
that day's episodes, written once per scope and date; and the ageing of older digests from active
to warm to archived. The job runs as a system principal, one org at a time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from lore_runtime.clock import Clock

from agent_svc.domain.digest import compose_digest, status_for_age
from agent_svc.usecases.digest_ports import ActiveScopes, Timeline

# Each run also rewrites the days before yesterday, so a day the job missed (the service was down)
# still gets its digest; a rewrite lands on the same item.
CATCH_UP_DAYS = 3


@dataclass(frozen=True, slots=True)
class DigestServices:
    scopes: ActiveScopes
    timeline: Timeline
    clock: Clock
    warm_after_days: int = 7
    archive_after_days: int = 30


def _start_of(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


async def write_daily_digest(day: date, services: DigestServices) -> int:
    """Digests of ``day`` (UTC) for every scope active that day; returns how many were written."""
    start, end = _start_of(day), _start_of(day + timedelta(days=1))
    written = 0
    for org_id, scope in await services.scopes.active_scopes(start, end):
        digest = compose_digest(day, await services.timeline.episodes(org_id, scope, start, end))
        if digest is not None:
            await services.timeline.write_digest(org_id, scope, digest)
            written += 1
    return written


async def age_digests(today: date, services: DigestServices) -> int:
    """Move digests of scopes active in the last two archive periods to the status their age calls
    for; returns how many changed."""
    since = _start_of(today - timedelta(days=2 * services.archive_after_days))
    changed = 0
    for org_id, scope in await services.scopes.active_scopes(since, _start_of(today + timedelta(days=1))):
        for stored in await services.timeline.digests(org_id, scope):
            target = status_for_age((today - stored.day).days, services.warm_after_days, services.archive_after_days)
            if target != stored.status:
                await services.timeline.set_status(org_id, stored.id, target)
                changed += 1
    return changed


async def run_daily_digests(services: DigestServices) -> dict[str, int]:
    """The scheduled job: the last days' digests, then the ageing; the summary kept in scheduled_runs."""
    today = services.clock.now().astimezone(UTC).date()
    written = 0
    for back in range(CATCH_UP_DAYS, 0, -1):
        written += await write_daily_digest(today - timedelta(days=back), services)
    return {"written": written, "aged": await age_digests(today, services)}
