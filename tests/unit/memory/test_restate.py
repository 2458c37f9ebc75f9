"""Remember folds what reflection learns again (usecases/restate.py), on the fakes: twins of one
batch are one item, a later restatement reinforces the kept one once however often it is retried,
and another scope or a client's own write is never folded."""

from __future__ import annotations

from memory_svc.domain.model import MemoryDraft, MemoryType, Provenance, Scope
from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.remember import remember
from memory_svc.usecases.restate import Restatements

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex
from tests.unit.memory.test_access_behind import RecordingAccessLog

ADA = Scope(user_id="u-ada", agent_id="aria")


def learnt(content: str, turn: str, key: str, scope: Scope = ADA, source: str = "reflection") -> MemoryDraft:
    provenance = Provenance(session_id=f"s-{turn}", turn_ids=(turn,), source_type=source)
    return MemoryDraft(content, MemoryType.FACT, scope, idempotency_key=key, provenance=provenance)


async def test_twins_fold_retries_reinforce_once_and_other_scopes_or_api_writes_never_fold() -> None:
    index, clock, log = InMemoryMemoryIndex(), FixedClock(), RecordingAccessLog()
    behind = AccessWriteBehind(index, index, log, clock)
    restatements = Restatements(index, index, behind)

    async def write(*drafts: MemoryDraft):
        return await remember(
            "org-a",
            list(drafts),
            "",
            index=index,
            embedder=HashingEmbedder(),
            clock=clock,
            erased=InMemoryErasedMemories(),
            restatements=restatements,
            principal="agent",
        )

    first, twin = await write(
        learnt("The user lives in Leeds.", "t1", "k1"), learnt("the user lives in Leeds", "t1", "k2")
    )
    assert twin.id == first.id and first.access_count == 1
    for _ in range(2):  # a retried reflection of turn t2
        (again,) = await write(learnt("The user lives in Leeds!", "t2", "k3"))
        await behind.flush()
    bob, client = await write(
        learnt("The user lives in Leeds.", "t3", "k4", Scope(user_id="u-bob", agent_id="aria")),
        learnt("The user lives in Leeds.", "t4", "k5", source="api"),
    )

    [kept] = await index.get("org-a", [first.id])
    assert again.id == first.id and kept.provenance.turn_ids == ("t1", "t2")
    assert kept.provenance.session_ids == ("s-t2",) and kept.access_count == 2
    assert len(log.rows) == 1
    assert len({first.id, bob.id, client.id}) == 3
