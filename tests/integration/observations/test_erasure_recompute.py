"""Erasure leaves no belief built on erased words: through real stubs on the
embedded Postgres. A belief whose every support cited an erased source is erased with it, wherever
it is scoped; one that kept support is recomputed from what is left and stays; a supersession chain
is re-linked past an erased belief; a replay answers the same and changes nothing."""

from contextlib import AsyncExitStack

import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
import pytest
from lore.common.v1 import scope_pb2
from lore.observations.v1 import observation_service_pb2 as pb
from lore.observations.v1 import observation_service_pb2_grpc

from tests.fakes import FixedClock, HashingEmbedder
from tests.grpc_harness import start_service


@pytest.fixture(scope="module")
async def stub(migrated_pg):
    async with AsyncExitStack() as stack:
        service = await start_service(
            stack,
            "observations",
            observations_svc.bootstrap,
            observations_svc.server,
            observations_svc.config.Settings,
            {"LORE_DATABASE_URL": migrated_pg.app_dsn, "LORE_REVALIDATION_INTERVAL_SECONDS": "0"},
            overrides=observations_svc.bootstrap.ObservationsOverrides(
                embedder=HashingEmbedder(384), clock=FixedClock()
            ),
        )
        yield observation_service_pb2_grpc.ObservationServiceStub(service.channel)


def tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "privacy-officer"))


def support(source_id: str, weight: float = 1.0) -> pb.EvidenceInput:
    return pb.EvidenceInput(
        stance=pb.EVIDENCE_STANCE_SUPPORT,
        source_type=pb.SOURCE_TYPE_MEMORY_ITEM,
        source_id=source_id,
        weight=weight,
        excerpt=f"said in {source_id}",
    )


async def observe(stub, org_id: str, summary: str, *evidence: pb.EvidenceInput, slot: str = "venue") -> pb.Observation:
    """An org-shared belief (no user) about project apollo: what any user's context may show."""
    candidate = pb.ObservationCandidate(
        kind=pb.OBSERVATION_KIND_PROJECT_STATE,
        subject_type=pb.SUBJECT_TYPE_PROJECT,
        subject_id="apollo",
        slot=slot,
        summary=summary,
        evidence=list(evidence),
    )
    request = pb.ObserveRequest(agent_id="aria", scope=scope_pb2.Scope(agent_id="aria"), candidate=candidate)
    return (await stub.Observe(request, metadata=tenant(org_id), timeout=10)).observation


async def erase_ana(stub, org_id: str, request_id: str, *sources: str) -> pb.EraseSubjectResponse:
    request = pb.EraseSubjectRequest(
        subject_type=pb.SUBJECT_TYPE_ENTITY,
        subject_id="ana",
        source_ids=list(sources),
        request_id=request_id,
        user_id="ana",
    )
    return await stub.EraseSubject(request, metadata=tenant(org_id), timeout=10)


async def beliefs_in_a_context_for_bo(stub, org_id: str) -> list[pb.Observation]:
    query = pb.QueryObservationsRequest(
        agent_id="aria", user_id="bo", scope_match=scope_pb2.SCOPE_MATCH_CONTEXT, page_size=200
    )
    return list((await stub.QueryObservations(query, metadata=tenant(org_id))).observations)


async def get(stub, org_id: str, observation_id: str) -> pb.Observation:
    request = pb.GetObservationRequest(id=observation_id)
    return (await stub.GetObservation(request, metadata=tenant(org_id))).observation


async def test_a_shared_belief_whose_only_support_was_the_erased_users_memory_is_erased(stub, org_id):
    lone = await observe(stub, org_id, "The offsite venue is the Lisbon loft", support("m-ana-1"))
    assert [belief.id for belief in await beliefs_in_a_context_for_bo(stub, org_id)] == [lone.id]

    erased = await erase_ana(stub, org_id, "erase-ana", "m-ana-1")

    assert erased.observations_erased == 1 and erased.evidence_erased == 1
    assert list(erased.shared_erased_observation_ids) == [lone.id]
    assert await beliefs_in_a_context_for_bo(stub, org_id) == []
    browse = await stub.QueryObservations(pb.QueryObservationsRequest(subject_id="apollo"), metadata=tenant(org_id))
    assert list(browse.observations) == []
    search = pb.SearchObservationsRequest(agent_id="aria", user_id="bo", query="Lisbon loft venue", k=10)
    assert list((await stub.SearchObservations(search, metadata=tenant(org_id))).results) == []


async def test_a_belief_with_mixed_evidence_is_recomputed_from_what_is_left_and_stays(stub, org_id):
    mixed = await observe(stub, org_id, "Apollo launches in May", support("m-ana-2"), support("m-bo-2"), slot="launch")
    assert mixed.confidence_components.source_count == 2

    erased = await erase_ana(stub, org_id, "erase-ana-mixed", "m-ana-2")

    assert erased.observations_erased == 0 and list(erased.recomputed_observation_ids) == [mixed.id]
    after = await get(stub, org_id, mixed.id)
    assert after.status == pb.OBSERVATION_STATUS_ACTIVE and after.summary == mixed.summary
    assert after.confidence_components.source_count == 1
    assert after.confidence_components.support_weight == pytest.approx(1.0)
    assert after.confidence < mixed.confidence
    assert [item.source_id for item in after.evidence] == ["m-bo-2"]
    assert [belief.id for belief in await beliefs_in_a_context_for_bo(stub, org_id)] == [mixed.id]
    # As if it had only ever had bo's support: the observations domain's own computation.
    alone = await observe(stub, f"{org_id}-b", "Apollo launches in May", support("m-bo-2"), slot="launch")
    assert after.confidence == pytest.approx(alone.confidence)


async def test_a_replayed_erasure_answers_the_same_and_a_new_one_finds_nothing(stub, org_id):
    await observe(stub, org_id, "The venue holds 80", support("m-ana-3"), slot="capacity")
    mixed = await observe(stub, org_id, "Catering is vegan", support("m-ana-4"), support("m-bo-4"), slot="catering")

    first = await erase_ana(stub, org_id, "erase-replay", "m-ana-3", "m-ana-4")
    recomputed = await get(stub, org_id, mixed.id)
    replay = await erase_ana(stub, org_id, "erase-replay", "m-ana-3", "m-ana-4")
    again = await erase_ana(stub, org_id, "erase-replay-2", "m-ana-3", "m-ana-4")

    assert replay == first
    assert (first.observations_erased, first.evidence_erased) == (1, 2)
    assert (again.observations_erased, again.evidence_erased, list(again.recomputed_observation_ids)) == (0, 0, [])
    kept = await get(stub, org_id, mixed.id)
    assert kept.confidence == pytest.approx(recomputed.confidence)
    assert kept.confidence_components.source_count == 1


async def test_erasing_a_belief_inside_a_supersession_chain_links_its_successor_to_the_one_before(stub, org_id):
    first = await observe(stub, org_id, "The venue is Porto", support("m-bo-5"), slot="city")
    middle = await observe(stub, org_id, "The venue is Lisbon", support("m-ana-5"), slot="city")
    last = await observe(stub, org_id, "The venue is Faro", support("m-bo-6"), support("m-cy-6"), slot="city")
    history = await stub.GetObservationHistory(pb.GetObservationHistoryRequest(id=last.id), metadata=tenant(org_id))
    assert [item.id for item in history.observations] == [last.id, middle.id, first.id]  # newest first

    erased = await erase_ana(stub, org_id, "erase-chain", "m-ana-5")

    assert erased.observations_erased == 1 and middle.id in erased.shared_erased_observation_ids
    history = await stub.GetObservationHistory(pb.GetObservationHistoryRequest(id=last.id), metadata=tenant(org_id))
    assert [item.id for item in history.observations] == [last.id, first.id]
    assert (await get(stub, org_id, last.id)).supersedes_observation_id == first.id
    # The first lost the contradiction the erased claim had put on it: recomputed, still superseded.
    assert first.id in erased.recomputed_observation_ids
    assert (await get(stub, org_id, first.id)).status == pb.OBSERVATION_STATUS_SUPERSEDED
