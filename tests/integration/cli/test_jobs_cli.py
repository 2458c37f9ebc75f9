"""`lore jobs list` and `lore jobs retry` against the real agent service (the requeue itself, of a
job that really died, is tests/integration/agent/test_faults.py's)."""

import uuid

from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2

from tests.integration.agent.support import tenant
from tests.integration.cli.test_org_transfer_cli import lore


async def test_jobs_are_listed_by_kind_and_a_retry_reports_what_it_requeued(services):
    org = f"org-{uuid.uuid4().hex[:8]}"
    env = {"LORE_AGENT_ADDR": services["agent"].address}
    agent = agent_service_pb2_grpc.AgentServiceStub(services["agent"].channel)
    started = await agent.StartSession(pb.StartSessionRequest(scope=scope_pb2.Scope(user_id="u")), metadata=tenant(org))
    turn = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content="I live in Porto.")
    await agent.ProcessTurn(pb.ProcessTurnRequest(session_id=started.session.id, turn=turn), metadata=tenant(org))

    code, listed, err = await lore(env, "jobs", "list", "--org", org)
    assert code == 0, err
    header, *rows = listed.splitlines()
    assert header.split() == ["kind", "queued", "running", "retrying", "dead", "oldest", "waiting"]
    assert [row.split()[0] for row in rows] == ["reflect", "episode", "erase"]

    code, retried, err = await lore(env, "jobs", "retry", "--org", org, "--kind", "reflect")
    assert code == 0, err
    assert retried.strip() == f"org {org}: 0 dead jobs queued again"

    code, _, err = await lore(env, "jobs", "retry", "--kind", "reflection")
    assert code == 2 and "invalid choice: 'reflection'" in err


async def test_an_unreachable_agent_is_named_with_its_setting(services):
    code, _, err = await lore({"LORE_AGENT_ADDR": "127.0.0.1:9"}, "jobs", "list")

    assert code == 1 and "LORE_AGENT_ADDR" in err
