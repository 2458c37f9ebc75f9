"""Observations and evidence as rows of schema ``observations`` (pgvector halfvec embeddings): the
columns, rows to records and back, and the reads and writes more than one port makes."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

import asyncpg
import numpy as np
from lore_runtime import errors
from lore_runtime.stores import tenant_transaction
from pgvector import HalfVector

from observations_svc.adapters.postgres.rows import from_row
from observations_svc.domain.model import ConfidenceComponents, Evidence, Observation

EMBEDDING_COLUMN = "embedding"

COLUMNS = """o.id, o.org_id, o.agent_id, o.kind, o.subject_type, o.subject_id, o.slot, o.canonical_key, o.summary,
    o.detail, o.tags, o.confidence, o.confidence_components, o.freshness, o.last_supported_at,
    o.revalidation_due_at, o.status, o.supersedes_observation_id, o.created_at, o.updated_at, o.user_id, o.team_id,
    o.unattributed"""
# Both evidence inserts (Observe's and an import's) write these columns, taking these as unnest arrays.
INSERT_EVIDENCE = """INSERT INTO observations.evidence
    (id, org_id, observation_id, stance, weight, source_type, source_id, excerpt, observed_at, operator_confirmed,
     created_at)"""
EVIDENCE_ARRAYS = ("stance", "weight", "source_type", "source_id", "excerpt", "observed_at", "operator_confirmed")

INSERT_OBSERVATION = """
    INSERT INTO observations.observations
        (id, org_id, agent_id, kind, subject_type, subject_id, slot, canonical_key, summary, detail, tags,
         confidence, confidence_components, freshness, last_supported_at, revalidation_due_at, status,
         supersedes_observation_id, embedding, created_at, updated_at, user_id, team_id, unattributed)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
            $24)
"""


def uuid_or_none(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def unit(vector: Sequence[float]) -> HalfVector:
    """Unit length, so inner product is cosine."""
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return HalfVector(array / norm if norm else array)


def stored_embedding(value: HalfVector) -> tuple[float, ...]:
    """A stored embedding as float32 values of unit length: stored unit, then rounded to half
    precision (a norm off by up to ~1e-3), so normalised again; the direction is the stored one."""
    array = value.to_numpy().astype(np.float32)
    norm = float(np.linalg.norm(array))
    return tuple((array / norm if norm else array).tolist())


def observation_from_row(row: asyncpg.Record, evidence: Sequence[Evidence] = ()) -> Observation:
    return from_row(
        Observation,
        row,
        id=str(row["id"]),
        tags=tuple(row["tags"]),
        components=ConfidenceComponents(**json.loads(row["confidence_components"])),
        supersedes_observation_id=str(row["supersedes_observation_id"]) if row["supersedes_observation_id"] else None,
        evidence=tuple(evidence),
    )


def evidence_from_row(row: asyncpg.Record) -> Evidence:
    return from_row(Evidence, row, id=str(row["id"]), observation_id=str(row["observation_id"]))


async def with_evidence(connection: asyncpg.Connection, org_id: str, row: asyncpg.Record | None) -> Observation | None:
    if row is None:
        return None
    rows = await connection.fetch(
        "SELECT * FROM observations.evidence WHERE org_id = $1 AND observation_id = $2 ORDER BY created_at, id",
        org_id,
        row["id"],
    )
    return observation_from_row(row, [evidence_from_row(item) for item in rows])


async def read_many(pool: asyncpg.Pool, org_id: str, ids: Sequence[str], *, embeddings: bool) -> list[asyncpg.Record]:
    """The org's rows among ``ids`` (without evidence), in the order of ``ids``; with ``embeddings``,
    each with its ``EMBEDDING_COLUMN``."""
    keys = [key for key in (uuid_or_none(value) for value in ids) if key is not None]
    if not keys:
        return []
    # The halfvec itself (pgvector's binary codec: 2 bytes a dimension), only when asked.
    extra = f", o.{EMBEDDING_COLUMN}" if embeddings else ""
    async with tenant_transaction(pool, org_id) as connection:
        return await connection.fetch(
            f"""
            SELECT {COLUMNS}{extra} FROM observations.observations o
            WHERE o.org_id = $1 AND o.id = ANY ($2::uuid[])
            ORDER BY array_position($2::uuid[], o.id)
            """,
            org_id,
            keys,
        )


def assessment(observation: Observation) -> tuple[Any, ...]:
    """What an assessment sets, as stored (the components as JSON): confidence, confidence_components,
    freshness, last_supported_at, revalidation_due_at, status; an insert and ``save_assessment`` write them."""
    return (
        observation.confidence,
        json.dumps(asdict(observation.components)),
        observation.freshness,
        observation.last_supported_at,
        observation.revalidation_due_at,
        observation.status,
    )


def observation_row(org_id: str, observation: Observation, embedding: Sequence[float]) -> tuple[Any, ...]:
    """The values of ``INSERT_OBSERVATION``, in its column order."""
    return (
        uuid.UUID(observation.id),
        org_id,
        observation.agent_id,
        observation.kind,
        observation.subject_type,
        observation.subject_id,
        observation.slot,
        observation.canonical_key,
        observation.summary,
        observation.detail,
        list(observation.tags),
        *assessment(observation),
        uuid.UUID(observation.supersedes_observation_id) if observation.supersedes_observation_id else None,
        unit(embedding),
        observation.created_at,
        observation.updated_at,
        observation.user_id,
        observation.team_id,
        observation.unattributed,
    )


@contextmanager
def evidence_cites_raw_sources() -> Iterator[None]:
    """The database refuses evidence citing an observation (a belief is never its own source):
    that refusal names the field at fault; any other integrity error is left as it is."""
    try:
        yield
    except asyncpg.IntegrityConstraintViolationError as error:
        if "never at an observation" in str(error):
            raise errors.InvalidArgument(
                "evidence.source_id", "evidence points at raw sources, never at an observation"
            ) from error
        raise
