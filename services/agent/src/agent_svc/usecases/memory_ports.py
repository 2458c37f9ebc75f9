"""What the use cases need of long-term memory (the memory service's MemoryService): the
messages indexed as they are said or imported, and what reflection and thread closing write."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from agent_svc.domain.transcript import MAX_METADATA_ENTRIES, Scope, Turn

MESSAGE_ROLE = "role"  # the metadata key of a message memory naming its turn's role


class MessageIndex(Protocol):
    """Long-term memory of the conversation's messages (the memory service's Remember)."""

    async def index(self, scope: Scope, session_id: str, turns: Sequence[Turn]) -> None:
        """Write each turn as a ``message`` memory, valid at the turn's time, with its metadata;
        idempotent per turn (a retry writes nothing twice)."""
        ...


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """One long-term memory reflection writes; ``key`` makes a re-run land on the same item."""

    key: str
    kind: str  # message | fact | preference | commitment | opinion | decision | tool_interaction
    content: str
    importance: float
    valid_at: datetime
    turn_ids: tuple[str, ...]
    entities: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)
    source: str = "reflection"  # reflection | live (a live turn's own message) | import
    speaker: str = ""  # a message's speaker, when the turn names one (Recall lifts a named speaker's)

    @classmethod
    def message(cls, turn: Turn) -> MemoryWrite:
        """The turn itself as a ``message`` memory: valid when it was said, with its metadata plus
        ``role`` (the turn's: whose words they are, "user" or "assistant", for a context to say so;
        left out only when the turn's metadata is already full) and its speaker's name before its
        words when known, keyed by the turn so every retry lands on the same item."""
        metadata = dict(turn.metadata)
        if MESSAGE_ROLE in metadata or len(metadata) < MAX_METADATA_ENTRIES:
            metadata[MESSAGE_ROLE] = turn.role
        return cls(
            key=f"turn:{turn.id}",
            kind="message",
            content=turn.said_by_name(),
            importance=0.5,
            valid_at=turn.created_at,
            turn_ids=(turn.id,),
            metadata=metadata,
            source=turn.source,
            speaker=turn.speaker,
        )


class Memories(MessageIndex, Protocol):
    async def remember(self, scope: Scope, session_id: str, items: Sequence[MemoryWrite]) -> list[str]:
        """Write the items (idempotent by key); returns their ids in order."""
        ...

    async def supersede(self, memory_ids: Sequence[str]) -> int:
        """A later statement replaced what these memories said: each current fact or preference among
        them becomes ``superseded`` (kept, never recalled by default); messages and the rest stay as
        they are. Idempotent; returns how many changed."""
        ...

    async def complete_commitments(self, scope: Scope, contents: Sequence[str]) -> int:
        """The scope's current (active or warm) commitments whose content is exactly one of
        ``contents`` become ``completed`` (kept, listed, never recalled by default). Only the
        memories of exactly this scope's ids (browse match). Idempotent; returns how many changed."""
        ...
