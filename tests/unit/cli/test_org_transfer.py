"""The file format of `lore org export` and the id derivation of a copy, without services."""

from __future__ import annotations

import json
import uuid

import pytest
from lore.common.v1 import provenance_pb2
from lore.memory.v1 import memory_service_pb2 as mpb
from lore.observations.v1 import engagement_service_pb2 as gpb
from lore.observations.v1 import observation_service_pb2 as opb
from lore_cli import org_ids, org_transfer


def ids(count: int) -> list[str]:
    return [str(uuid.uuid4()) for _ in range(count)]


def test_the_header_must_name_the_format_and_version():
    assert org_transfer.read_header('{"format": "lore.org-export", "version": 1, "org": "a"}')["org"] == "a"
    for line, expected in [
        ('{"kind": "memory", "record": {}}', "line 1: not a Lore org export"),
        ("", "line 1: not a Lore org export"),
        ("[1, 2]", "line 1: not a Lore org export"),
        ('{"format": "lore.org-export", "version": 2, "org": "a"}', "version 2 is not supported"),
        ('{"format": "lore.org-export", "version": 1}', 'no "org"'),
    ]:
        with pytest.raises(org_transfer.ImportFailed, match=expected):
            org_transfer.read_header(line)


def test_a_bad_line_is_named_by_its_number():
    for text, expected in [
        ("{not json", "line 7: not JSON"),
        ('{"kind": "secret", "record": {}}', "line 7: unknown kind 'secret'"),
        ('{"kind": "memory", "record": []}', 'line 7: "record" must be an object'),
        ('{"kind": "memory", "record": {"importance": "high"}}', "line 7: invalid memory record"),
        ('{"kind": "memory", "record": {"colour": "red"}}', "line 7: invalid memory record"),
    ]:
        with pytest.raises(org_transfer.ImportFailed, match=expected):
            org_transfer.parse_line(7, text)


def test_lines_are_deterministic_proto3_json():
    memory = mpb.Memory(id=ids(1)[0], content="Sam drinks tea.", memory_type=mpb.MEMORY_TYPE_FACT, importance=0.3)
    line = org_transfer.record_line("memory", memory)
    assert line == org_transfer.record_line("memory", memory)
    assert json.loads(line) == {
        "kind": "memory",
        "record": {"id": memory.id, "content": "Sam drinks tea.", "memoryType": "MEMORY_TYPE_FACT", "importance": 0.3},
    }
    assert org_transfer.parse_line(2, line) == ("memory", memory)


def test_a_copy_re_derives_every_id_and_reference_consistently():
    memory_id, folded_id, episode_id, old_id, new_id, evidence_id = ids(6)
    memory = mpb.Memory(
        id=folded_id,
        provenance=provenance_pb2.Provenance(
            session_id="s-1", turn_ids=["t-1"], consolidated_into=memory_id, consolidated_from=[]
        ),
    )
    successor = opb.Observation(
        id=new_id,
        supersedes_observation_id=old_id,
        evidence=[
            opb.Evidence(
                id=evidence_id, observation_id=new_id, source_type=opb.SOURCE_TYPE_MEMORY_ITEM, source_id=memory_id
            ),
            opb.Evidence(
                id=ids(1)[0], observation_id=new_id, source_type=opb.SOURCE_TYPE_EPISODE, source_id=episode_id
            ),
            opb.Evidence(id=ids(1)[0], observation_id=new_id, source_type=opb.SOURCE_TYPE_MESSAGE, source_id=memory_id),
            opb.Evidence(id=ids(1)[0], observation_id=new_id, source_type=opb.SOURCE_TYPE_ENTITY, source_id="sam"),
        ],
    )
    hypothesis_id, finding_id, line_id = ids(3)
    hypothesis = gpb.Hypothesis(
        id=hypothesis_id,
        finding_id=finding_id,
        evidence=[gpb.HypothesisEvidence(id=line_id)],
        finding=gpb.Finding(id=finding_id, hypothesis_id=hypothesis_id),
    )
    for kind, record in [("memory", memory), ("observation", successor), ("hypothesis", hypothesis)]:
        org_ids.translate(kind, record, "org-a", "org-b")

    def copied(value: str) -> str:
        return org_ids.copied_id("org-a", "org-b", value)

    assert memory.id == copied(folded_id) and memory.provenance.consolidated_into == copied(memory_id)
    assert (memory.provenance.session_id, list(memory.provenance.turn_ids)) == ("s-1", ["t-1"])  # not exported
    assert successor.id == copied(new_id) and successor.supersedes_observation_id == copied(old_id)
    assert [e.observation_id for e in successor.evidence] == [copied(new_id)] * 4
    assert [e.source_id for e in successor.evidence] == [copied(memory_id), copied(episode_id), memory_id, "sam"]
    assert successor.evidence[0].id == copied(evidence_id)
    assert hypothesis.id == hypothesis.finding.hypothesis_id == copied(hypothesis_id)
    assert hypothesis.finding_id == hypothesis.finding.id == copied(finding_id)
    assert hypothesis.evidence[0].id == copied(line_id)
    # Deterministic (a re-import lands on the same ids), distinct per target org, '' stays ''.
    assert copied(old_id) == org_ids.copied_id("org-a", "org-b", old_id) != org_ids.copied_id("org-a", "org-c", old_id)
    assert org_ids.copied_id("org-a", "org-b", "") == ""


def test_an_error_field_points_back_at_its_line():
    batch = org_transfer._Batch(group="engagement")
    for line, kind in [(10, "hypothesis"), (11, "hypothesis"), (12, "unknown")]:
        batch.add(kind, gpb.Unknown(), line, 10)
    assert batch.line_of("hypotheses[1].evidence[0].weight") == 11
    assert batch.line_of("unknowns[0].resolution") == 12
    assert batch.line_of("engagement") is None
    assert batch.span() == "lines 10-12"
