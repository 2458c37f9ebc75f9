"""The stored payload of a memory item (adapters/memory_payload.py): decoding gives back the item
written, fills what older payloads lack, refuses an unknown type or status as the enums do, and
a point id is the canonical UUID form of any spelling of an id."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from memory_svc.adapters.memory_payload import (
    TARGET_FIELDS,
    from_payload,
    point_id,
    target_from_payload,
    to_payload,
)
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.usecases.memory_ports import AccessTarget

T0 = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


def full_item() -> MemoryItem:
    return MemoryItem(
        id=str(uuid.uuid4()),
        org_id="org-a",
        content="likes green tea",
        memory_type=MemoryType.PREFERENCE,
        scope=Scope(user_id="u-1", agent_id="a-1", team_id="t-1"),
        importance=0.7,
        status=MemoryStatus.WARM,
        metadata={"source": "chat", "lang": "en"},
        provenance=Provenance("s-1", ("t-1", "t-2"), "reflection", "c-1", ("f-1",), ("s-0", "s-1"), "Ana"),
        entities=("Ana", "Lisbon"),
        created_at=T0,
        valid_at=T0,
        last_accessed_at=T0,
        access_count=4,
        current_salience=1.3,
        write_digest="digest",
        updated_at=T0,
    )


def test_a_payload_decodes_to_the_item_written() -> None:
    item = full_item()

    decoded = from_payload(to_payload(item))

    assert decoded == item
    assert type(decoded.memory_type) is MemoryType and type(decoded.status) is MemoryStatus


def test_an_older_payload_gets_the_defaults_of_what_it_lacks() -> None:
    payload = to_payload(full_item())
    for key in ("metadata", "provenance", "entities", "write_digest", "access_count", "current_salience"):
        del payload[key]
    payload.update(updated_at="", agent_id=None, created_at="2026-03-04T05:06:07")  # an unpadded, naive time

    decoded = from_payload(payload)

    assert (decoded.metadata, decoded.provenance, decoded.entities, decoded.write_digest) == ({}, Provenance(), (), "")
    assert (decoded.access_count, decoded.current_salience, decoded.updated_at) == (0, 1.0, None)
    assert decoded.scope == Scope(user_id="u-1", team_id="t-1")
    assert decoded.created_at == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


@pytest.mark.parametrize(("key", "enum"), [("memory_type", "MemoryType"), ("status", "MemoryStatus")])
def test_an_unknown_type_or_status_is_refused(key: str, enum: str) -> None:
    payload = to_payload(full_item()) | {key: "gossip"}

    with pytest.raises(ValueError, match=f"'gossip' is not a valid {enum}"):
        from_payload(payload)


def test_an_access_target_reads_the_id_scope_and_type() -> None:
    item = full_item()
    payload = to_payload(item)

    assert target_from_payload({key: payload[key] for key in TARGET_FIELDS}) == AccessTarget.of(item)


def test_a_point_id_is_the_canonical_form_of_any_spelling() -> None:
    key = uuid.uuid4()
    canonical = str(key)

    for spelling in (canonical, canonical.upper(), f"{{{canonical}}}", f"urn:uuid:{canonical}", key.hex):
        assert point_id(spelling) == canonical
    for wrong in ("", "not-a-uuid", canonical[:-1] + "g", canonical + "\n", " " + canonical):
        with pytest.raises(ValueError):
            point_id(wrong)
