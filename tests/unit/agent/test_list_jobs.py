"""ListJobs on a fake queue: the org's jobs newest first, each once across pages, filtered by kind
and state; bad filters and tokens are refused naming the field; a token is good only for the
listing, filters and org it came from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.api.agent_convert import job_to_pb
from agent_svc.domain.jobs import JobRecord
from agent_svc.usecases.jobs import list_jobs
from lore_runtime.errors import InvalidArgument
from lore_runtime.page_tokens import PageTokens, fingerprint

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TOKENS = PageTokens([b"test key"])


class FakeQueue:
    """The JobQueueAdmin port's listing over rows held in memory, org by org, as the adapter reads them."""

    def __init__(self, rows: dict[str, list[JobRecord]]) -> None:
        self.rows = rows
        self.asked: list[tuple[str, str, str, int, int | None]] = []

    async def jobs(self, org_id: str, kind: str, state: str, limit: int, before_id: int | None) -> list[JobRecord]:
        self.asked.append((org_id, kind, state, limit, before_id))
        found = [
            job
            for job in self.rows.get(org_id, [])
            if (not kind or job.kind == kind)
            and (not state or job.state == state)
            and (before_id is None or job.id < before_id)
        ]
        return sorted(found, key=lambda job: -job.id)[:limit]


def job(job_id: int, kind: str = "reflect", state: str = "queued", **fields) -> JobRecord:
    at = T0 + timedelta(seconds=job_id)
    return JobRecord(job_id, kind, state, fields.pop("attempts", 0), at, at, **fields)


def queue() -> FakeQueue:
    kinds, states = ("reflect", "episode", "erase"), ("queued", "running", "retrying", "dead")
    mine = [job(n, kinds[n % 3], states[n % 4]) for n in range(1, 13)]
    return FakeQueue({"org-a": mine, "org-b": [job(100), job(101, state="dead")]})


async def every_page(fake: FakeQueue, org: str, kind: str = "", state: str = "", size: int = 5) -> list[list[int]]:
    pages, token = [], ""
    while True:
        found, token = await list_jobs(org, kind, state, size, token, queue=fake, tokens=TOKENS)
        pages.append([item.id for item in found])
        if not token:
            return pages


async def test_the_org_jobs_come_newest_first_each_once_across_pages() -> None:
    pages = await every_page(queue(), "org-a")

    assert pages == [[12, 11, 10, 9, 8], [7, 6, 5, 4, 3], [2, 1]]
    assert await every_page(queue(), "org-b") == [[101, 100]]


async def test_kind_and_state_filter_the_listing() -> None:
    fake = queue()

    dead_reflect = await every_page(fake, "org-a", "reflect", "dead", size=1)
    episodes = await every_page(fake, "org-a", "episode")

    assert dead_reflect == [[3]]  # the one job both a reflect (3 % 3 == 0) and dead (3 % 4 == 3)
    assert episodes == [[10, 7, 4, 1]]
    assert {asked[1:3] for asked in fake.asked} == {("reflect", "dead"), ("episode", "")}


async def test_the_default_page_is_fifty_and_the_largest_five_hundred() -> None:
    fake = queue()
    await list_jobs("org-a", "", "", 0, "", queue=fake, tokens=TOKENS)
    await list_jobs("org-a", "", "", 500, "", queue=fake, tokens=TOKENS)

    assert [asked[3] for asked in fake.asked] == [51, 501]  # one more than the page: is there another?
    with pytest.raises(InvalidArgument) as too_big:
        await list_jobs("org-a", "", "", 501, "", queue=fake, tokens=TOKENS)
    assert too_big.value.field == "page_size"


@pytest.mark.parametrize(
    ("kind", "state", "field"), [("reflection", "", "kind"), ("", "failed", "state"), ("", "done", "state")]
)
async def test_an_unknown_kind_or_state_is_refused_naming_the_field(kind: str, state: str, field: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        await list_jobs("org-a", kind, state, 5, "", queue=queue(), tokens=TOKENS)

    assert refused.value.field == field
    assert ("queued" in str(refused.value)) if field == "state" else ("episode" in str(refused.value))


async def test_a_token_is_good_only_for_its_filters_and_org() -> None:
    fake = queue()
    _, token = await list_jobs("org-a", "", "", 5, "", queue=fake, tokens=TOKENS)

    with pytest.raises(InvalidArgument) as other_filters:
        await list_jobs("org-a", "reflect", "", 5, token, queue=fake, tokens=TOKENS)
    with pytest.raises(InvalidArgument) as other_org:
        await list_jobs("org-b", "", "", 5, token, queue=fake, tokens=TOKENS)
    with pytest.raises(InvalidArgument) as made_up:
        await list_jobs("org-a", "", "", 5, "eyJrIjoiam9icyJ9.AAAA", queue=fake, tokens=TOKENS)
    crafted = TOKENS.seal("org-a", "jobs", fingerprint("", ""), {"i": "12"})
    with pytest.raises(InvalidArgument) as bad_position:
        await list_jobs("org-a", "", "", 5, crafted, queue=fake, tokens=TOKENS)

    for refused in (other_filters, other_org, made_up, bad_position):
        assert refused.value.field == "page_token"


def test_a_job_prints_what_it_serves_and_its_last_error() -> None:
    failed_at = T0 + timedelta(minutes=1)
    printed = job_to_pb(
        job(
            7,
            "reflect",
            "retrying",
            attempts=2,
            session_id="5b7e1c9a-0d2f-4e3b-8a61-7c9d0e1f2a3b",
            through_sequence=4,
            last_error="memory service unavailable",
            last_error_at=failed_at,
            next_attempt_at=failed_at + timedelta(seconds=4),
        )
    )
    erase = job_to_pb(job(8, "erase", "dead", erasure_id="erase-1"))

    assert (printed.id, printed.kind, printed.state, printed.attempts) == ("7", "reflect", "retrying", 2)
    assert (printed.session_id, printed.through_sequence) == ("5b7e1c9a-0d2f-4e3b-8a61-7c9d0e1f2a3b", 4)
    assert printed.last_error == "memory service unavailable"
    assert printed.last_error_at.ToDatetime(UTC) == failed_at
    assert printed.next_attempt_at.ToDatetime(UTC) == failed_at + timedelta(seconds=4)
    assert printed.created_at.ToDatetime(UTC) == T0 + timedelta(seconds=7)
    assert erase.erasure_id == "erase-1" and not erase.HasField("last_error_at")
    assert not erase.HasField("next_attempt_at") and erase.session_id == ""
