"""The agent's durable background jobs, as values: what to do, for which org, and the key that
keeps a job from being queued twice while an identical one is still waiting or running.

Handlers are idempotent (every write carries an id derived from the job's subject), so a job
run twice — after a crash, a retry or a re-enqueue once the first finished — writes nothing twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

REFLECT = "reflect"  # reflect a session's turns up to a sequence
EPISODE = "episode"  # extract the episode of an ended session
ERASE = "erase"  # erase a subject everywhere (usecases/erasure.py)
KINDS = (REFLECT, EPISODE, ERASE)
# A job's state as the queue knows it (a finished job leaves the queue): waiting its first run, being
# run, waiting again after a failure, dead-lettered (attempts exhausted).
STATES = ("queued", "running", "retrying", "dead")


@dataclass(frozen=True, slots=True)
class Job:
    kind: str
    org_id: str
    args: Mapping[str, str | int] = field(default_factory=dict)

    @property
    def dedupe_key(self) -> str:
        return ":".join([self.kind, self.org_id, *(f"{key}={self.args[key]}" for key in sorted(self.args))])

    def encode(self) -> bytes:
        return json.dumps({"org_id": self.org_id, "args": dict(self.args)}, sort_keys=True).encode()

    @classmethod
    def decode(cls, kind: str, payload: bytes) -> Job:
        data = json.loads(payload)
        return cls(kind, data["org_id"], data.get("args") or {})


def reflect_job(org_id: str, session_id: str, through_sequence: int) -> Job:
    return Job(REFLECT, org_id, {"session_id": session_id, "through": through_sequence})


def episode_job(org_id: str, session_id: str) -> Job:
    return Job(EPISODE, org_id, {"session_id": session_id})


def erase_job(org_id: str, erasure_id: str) -> Job:
    return Job(ERASE, org_id, {"erasure_id": erasure_id})


def session_job_keys(org_id: str, session_id: str) -> tuple[str, ...]:
    """The dedupe keys of a session's jobs are one of these or start with one and ``:`` (a reflect
    job adds ``:through=<n>``): what erasure drops with the session."""
    return tuple(Job(kind, org_id, {"session_id": session_id}).dedupe_key for kind in (REFLECT, EPISODE))


@dataclass(frozen=True, slots=True)
class QueueCounts:
    """Jobs of one kind by state: waiting, running, retrying after a failure, dead-lettered."""

    kind: str
    queued: int = 0
    running: int = 0
    retrying: int = 0
    dead: int = 0
    oldest_queued_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class JobRecord:
    """One job as the queue holds it (ListJobs): ``id`` the queue's, ``state`` one of STATES, what
    it serves read from its arguments (a session and the sequence a reflect job reads through, an
    erasure), and the error of its last failed attempt when the queue's log still has it."""

    id: int
    kind: str
    state: str
    attempts: int
    created_at: datetime
    updated_at: datetime
    next_attempt_at: datetime | None = None
    last_error: str = ""
    last_error_at: datetime | None = None
    session_id: str = ""
    through_sequence: int = 0
    erasure_id: str = ""
