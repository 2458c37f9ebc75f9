"""The ids of an org's copy: ``lore org import`` of org A's export into org B.

Record ids are global keys in the stores (a Qdrant point id, a Postgres primary key), and one org
may never write over another's record, so a copy cannot keep A's ids in a store A still lives in.
When the target org is not the file's org, every record id — and every reference to one — is
re-derived deterministically: a UUIDv5 of (source org, target org, old id). The same file imported
twice into B gives the same ids, so a re-import still changes nothing; a restore into the file's own
org (or into fresh databases under the same org) keeps the ids as they are.

References into other services' data that the export does not carry (session, turn and
conversation ids; entity names) are kept as they are.
"""

from __future__ import annotations

import uuid

from google.protobuf.message import Message
from lore.observations.v1 import observation_service_pb2 as observation_pb

NAMESPACE = uuid.UUID("5d1c7f0e-8a43-4b6e-9f21-3c0b7e9a4d58")
# Evidence sources that are records of the export (their ids are re-derived with them).
_EXPORTED_SOURCES = (observation_pb.SOURCE_TYPE_MEMORY_ITEM, observation_pb.SOURCE_TYPE_EPISODE)


def copied_id(source_org: str, target_org: str, record_id: str) -> str:
    """The id in ``target_org`` of the record ``record_id`` of ``source_org`` ('' stays '')."""
    if not record_id:
        return record_id
    return str(uuid.uuid5(NAMESPACE, "\x1f".join((source_org, target_org, record_id))))


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def translate(kind: str, record: Message, source_org: str, target_org: str) -> None:
    """Re-derive, in place, the ids of one exported record (of ``kind``) for ``target_org``."""

    def new(value: str) -> str:
        return copied_id(source_org, target_org, value)

    if kind in ("memory", "episode", "unknown", "observation", "hypothesis"):
        record.id = new(record.id)  # type: ignore[attr-defined]
    if kind == "memory":
        provenance = record.provenance  # type: ignore[attr-defined]
        provenance.consolidated_into = new(provenance.consolidated_into)
        provenance.consolidated_from[:] = [new(value) for value in provenance.consolidated_from]
    elif kind == "observation":
        record.supersedes_observation_id = new(record.supersedes_observation_id)  # type: ignore[attr-defined]
        for evidence in record.evidence:  # type: ignore[attr-defined]
            evidence.id = new(evidence.id)
            evidence.observation_id = new(evidence.observation_id)
            if evidence.source_type in _EXPORTED_SOURCES and _is_uuid(evidence.source_id):
                evidence.source_id = new(evidence.source_id)
    elif kind == "hypothesis":
        record.finding_id = new(record.finding_id)  # type: ignore[attr-defined]
        for line in record.evidence:  # type: ignore[attr-defined]
            line.id = new(line.id)
        if record.HasField("finding"):
            record.finding.id = new(record.finding.id)  # type: ignore[attr-defined]
            record.finding.hypothesis_id = new(record.finding.hypothesis_id)  # type: ignore[attr-defined]
