"""A message memory says whose words it keeps: the turn's role in its metadata."""

from datetime import UTC, datetime

from agent_svc.domain.transcript import MAX_METADATA_ENTRIES, Turn
from agent_svc.usecases.memory_ports import MESSAGE_ROLE, MemoryWrite

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_a_message_memory_carries_its_turns_role_beside_the_turns_metadata() -> None:
    said = Turn("t-1", "s-1", 1, "assistant", "I'll send the draft on Friday.", T0, {"channel": "web"})

    written = MemoryWrite.message(said)

    assert written.metadata == {"channel": "web", MESSAGE_ROLE: "assistant"}
    assert said.metadata == {"channel": "web"}  # the turn keeps its own


def test_the_role_replaces_a_clients_role_key_and_never_overfills_the_metadata() -> None:
    claimed = Turn("t-2", "s-1", 2, "user", "Hi.", T0, {MESSAGE_ROLE: "assistant"})
    full = {f"k{i}": "v" for i in range(MAX_METADATA_ENTRIES)}

    assert MemoryWrite.message(claimed).metadata == {MESSAGE_ROLE: "user"}
    assert MemoryWrite.message(Turn("t-3", "s-1", 3, "user", "Hi.", T0, full)).metadata == full
