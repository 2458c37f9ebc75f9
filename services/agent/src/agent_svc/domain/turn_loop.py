"""Values of the per-turn loop (ARCHITECTURE.md §5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_svc.domain.forget_requests import ForgottenItem
from agent_svc.domain.transcript import Turn

# ProcessTurn takes the user's message and the caller's own reply to it (the default deployment
# has no model: the caller's model answers, and what it promised must be learnt too); system and
# tool turns, and history, go through ImportTurns.
PROCESSED_ROLES = ("user", "assistant")
# What became of the reply a language model was asked for (lore.agent.v1.ReplyStatus).
REPLY_STATUSES = ("generated", "timed_out", "unavailable", "empty")

# Roles ProcessTurn assembles a context for: an assistant turn is an answer, not a question.
CONTEXT_ROLES = ("user",)
# Reflection reads what the user and the assistant said; system and tool turns are context only.
REFLECTED_ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Opaque:
    """A message of another service's contract that the agent hands on without reading it (the
    caller's AssembleOptions, the assembler's context and Prime): the message object itself, whose
    type only the api layer and the adapters know, so it crosses the use cases without being
    serialised and parsed again."""

    message: Any


@dataclass(frozen=True, slots=True)
class Assembled:
    """The assembler's context: its text (what a language model reads), the whole message as the
    assembler returned it (``message``: handed back to the caller unchanged) and its bytes
    (``payload``: what the kept result stores, so a retry gets the same context back)."""

    text: str = ""
    payload: bytes = b""
    message: Opaque | None = None


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What the first processing of a turn returned; a retry with the same key gets it again."""

    reply: str = ""
    reply_turn_id: str = ""
    context: bytes = b""
    # What the turn asked to forget and what that came to (domain/forget_requests.py); "" and () when
    # it asked nothing of the kind.
    forget_status: str = ""
    forgotten: tuple[ForgottenItem, ...] = ()
    # What became of the reply (REPLY_STATUSES); "" when none was asked for (no model, an assistant turn).
    reply_status: str = ""


@dataclass(frozen=True, slots=True)
class KeptResult:
    """A turn's kept result and when it was kept (what the retention counts from)."""

    result: TurnResult
    kept_at: datetime


# Whether a turn's assembled context can still be read (lore.agent.v1.TurnContextStatus).
AVAILABLE, EXPIRED, NONE = "available", "expired", "none"


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What is known of the context assembled for a turn: ``context`` (the assembler's bytes, as
    kept) when ``status`` is available; otherwise ``reason``, a code, and ``message``, a sentence,
    say why there is none. ``expires_at``: when the kept result passes, or passed, the retention
    (None when results are kept forever)."""

    turn: Turn
    status: str
    reason: str = ""
    message: str = ""
    context: bytes = b""
    assembled_at: datetime | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ProcessedTurn:
    turn: Turn
    result: TurnResult
    reply_turn: Turn | None = None
    replayed: bool = False
    # The context of ``result`` as the assembler's message, when this call assembled it (None: read
    # ``result.context``, the kept bytes, e.g. on a replay).
    context: Opaque | None = None
