"""WorkingMemoryStore on Redis: a hash and a list per (org, session), written atomically.

Key layout (``<org>`` and ``<session>`` percent-encoded, so ``:`` in an id can never make two
tenants' keys collide; the braces are a Redis Cluster hash tag, so both keys of a session
live in one slot and one Lua script may touch them):

- ``<prefix>:{<org>:<session>}`` — hash: ``summary``, ``context_fingerprint`` (strings),
  ``active_plan``, ``emotion_trajectory``, ``pending_slots``, ``last_tool_result`` (JSON; ""
  when unset), ``turn_count``, ``updated_at``/``expires_at`` (epoch ms), and one
  ``idem:<key>`` field per idempotency key seen (so a retried AppendTurn lands once);
- ``<prefix>:{<org>:<session>}:turns`` — list of turns as JSON, oldest first, trimmed to N.

AppendTurn is one Lua script (HINCRBY the count, RPUSH, LTRIM, PEXPIRE both keys, read
back), so concurrent appends lose nothing and number turns exactly; it never rewrites the turns
already there. A read (or an append's read-back) whose read mask leaves the recent turns out does
not read the list at all (``TurnsRead.NONE``: one HMGET); with only the turns' keys asked for
(``TurnsRead.KEYS``) each stored turn is decoded for its id, sequence and idempotency key alone. UpdateWorkingMemory is
another (HSET, PEXPIRE, read back; every updatable path is its own hash field). A write that
carries a fencing token first reads the session's fence (the lease adapter's
``<lease prefix>:{<org>:<session>}:fence``, same hash tag) and is refused, writing nothing,
when a newer lease has been granted: a turn that outlived its lease cannot overwrite its
successor's. Every call goes through ``RedisCalls`` (adapters/redis_calls.py): bounded, and
translated into DependencyUnavailable or Conflict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import redis.asyncio as redis

from memory_svc.adapters.redis_calls import RedisCalls
from memory_svc.domain.working_memory import (
    UPDATABLE_PATHS,
    EmotionReading,
    PendingSlot,
    Plan,
    ToolResult,
    Turn,
    TurnRole,
    WorkingMemory,
)
from memory_svc.usecases.working_memory_ports import TurnsRead

# The hash fields read back (not the idem:<key> ones): every updatable path, then the bookkeeping.
FIELDS = (*UPDATABLE_PATHS, "turn_count", "updated_at", "expires_at")

# Both scripts start with it. KEYS[3]: the fence; ARGV[1]: the caller's token, "" when unchecked.
_FENCE_CHECK = """
if ARGV[1] ~= '' and tonumber(redis.call('GET', KEYS[3]) or '0') > tonumber(ARGV[1]) then
  return redis.error_reply('LORE_LEASE_LOST')
end
"""

# The append itself, shared with the lease adapter's acquire-and-append script: a Lua function of the hash
# and list keys and of the positions of its arguments in ARGV (turn JSON without its opening brace, max turns,
# ttl ms, now ms, idempotency key, "1" to read the turns back, else none is; the fields to read back from
# ``first_field`` on). The script puts the server-assigned sequence first in the turn's JSON object: no JSON
# library needed. Returns {hash fields, turns read back}.
APPEND_FUNCTION = """
local function append_turn(hash, turns, at, first_field)
  local ttl, now, idem = tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]), ARGV[at + 4]
  if idem == '' or redis.call('HEXISTS', hash, 'idem:' .. idem) == 0 then
    local sequence = redis.call('HINCRBY', hash, 'turn_count', 1)
    redis.call('RPUSH', turns, '{"sequence":' .. sequence .. ',' .. ARGV[at])
    redis.call('LTRIM', turns, -tonumber(ARGV[at + 1]), -1)
    if idem ~= '' then
      redis.call('HSET', hash, 'idem:' .. idem, sequence)
    end
    redis.call('HSET', hash, 'updated_at', ARGV[at + 3], 'expires_at', string.format('%d', now + ttl))
    redis.call('PEXPIRE', hash, ttl)
    redis.call('PEXPIRE', turns, ttl)
  end
  local listed = {}
  if ARGV[at + 5] == '1' then
    listed = redis.call('LRANGE', turns, 0, -1)
  end
  return {redis.call('HMGET', hash, unpack(ARGV, first_field)), listed}
end
"""

# KEYS: hash, turns, fence. ARGV: token, then ``append_args`` (the append's six, then the fields to read back).
_APPEND = APPEND_FUNCTION + _FENCE_CHECK + "return append_turn(KEYS[1], KEYS[2], 2, 8)\n"

# KEYS: hash, turns, fence. ARGV: token, ttl ms, number of field/value pairs n, the n pairs, then the fields
# to read back.
_UPDATE = (
    _FENCE_CHECK
    + """
local hash, turns = KEYS[1], KEYS[2]
local ttl, count = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('HSET', hash, unpack(ARGV, 4, 3 + 2 * count))
redis.call('PEXPIRE', hash, ttl)
redis.call('PEXPIRE', turns, ttl)
return {redis.call('HMGET', hash, unpack(ARGV, 4 + 2 * count)), redis.call('LRANGE', turns, 0, -1)}
"""
)

# The session leases' key prefix (adapters/redis_session_leases.py): the fence lives under it.
LEASE_PREFIX = "lore:lease"
MEMORY_PREFIX = "lore:wm"


def fence_key(lease_prefix: str, org_id: str, session_id: str) -> str:
    """The key holding the session's newest fencing token (written by the lease adapter)."""
    return f"{lease_prefix}:{session_tag(org_id, session_id)}:fence"


def memory_keys(prefix: str, org_id: str, session_id: str) -> tuple[str, str]:
    """The working memory's hash and turn-list keys of (org, session)."""
    base = f"{prefix}:{session_tag(org_id, session_id)}"
    return base, f"{base}:turns"


def _token(fencing_token: int | None) -> str:
    return "" if fencing_token is None else str(int(fencing_token))


def session_tag(org_id: str, session_id: str) -> str:
    """The hash tag naming (org, session): unambiguous whatever characters the ids hold."""
    return "{" + quote(org_id, safe="") + ":" + quote(session_id, safe="") + "}"


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _from_ms(value: Any) -> datetime | None:
    return datetime.fromtimestamp(int(value) / 1000, tz=UTC) if value not in (None, b"", "") else None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _from_iso(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _str(value: Any) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else str(value)


def _tool_to_json(tool: ToolResult) -> dict[str, Any]:
    return {
        "tool_name": tool.tool_name,
        "intent": tool.intent,
        "result": tool.result,
        "summary": tool.summary,
        "salient_fields": list(tool.salient_fields),
        "occurred_at": _iso(tool.occurred_at),
    }


def _tool_from_json(data: dict[str, Any]) -> ToolResult:
    return ToolResult(
        tool_name=data["tool_name"],
        intent=data.get("intent", ""),
        result=data.get("result") or {},
        summary=data.get("summary", ""),
        salient_fields=tuple(data.get("salient_fields") or ()),
        occurred_at=_from_iso(data.get("occurred_at")),
    )


def turn_body(turn: Turn) -> str:
    """The turn as JSON minus its opening brace (the script prepends ``{"sequence":N,``)."""
    data = {
        "id": turn.id,
        "session_id": turn.session_id,
        "role": turn.role.value if turn.role else "",
        "content": turn.content,
        "created_at": _iso(turn.created_at),
        "metadata": turn.metadata,
        "idempotency_key": turn.idempotency_key,
        "tool_interactions": [_tool_to_json(tool) for tool in turn.tool_interactions],
    }
    return json.dumps(data, separators=(",", ":"))[1:]


def _turn_from_json(raw: Any) -> Turn:
    data = json.loads(raw)
    return Turn(
        id=data["id"],
        session_id=data["session_id"],
        sequence=int(data["sequence"]),
        role=TurnRole(data["role"]) if data.get("role") else None,
        content=data["content"],
        created_at=_from_iso(data.get("created_at")),
        metadata=dict(data.get("metadata") or {}),
        idempotency_key=data.get("idempotency_key", ""),
        tool_interactions=tuple(_tool_from_json(tool) for tool in data.get("tool_interactions") or ()),
    )


def _encode(path: str, changes: WorkingMemory) -> str:
    """The hash field value of one updatable path."""
    if path in ("summary", "context_fingerprint"):
        return getattr(changes, path)
    if path == "active_plan":
        plan = changes.active_plan
        if plan is None:
            return ""
        return json.dumps({"goal": plan.goal, "progress": plan.progress, "next_step": plan.next_step})
    if path == "emotion_trajectory":
        return json.dumps(
            [
                {
                    "emotion": reading.emotion,
                    "valence": reading.valence,
                    "intensity": reading.intensity,
                    "turn_id": reading.turn_id,
                    "observed_at": _iso(reading.observed_at),
                }
                for reading in changes.emotion_trajectory
            ]
        )
    if path == "pending_slots":
        return json.dumps(
            [{"name": slot.name, "tool_name": slot.tool_name, "prompt": slot.prompt} for slot in changes.pending_slots]
        )
    if path == "last_tool_result":
        tool = changes.last_tool_result
        return json.dumps(_tool_to_json(tool)) if tool is not None else ""
    raise ValueError(f"not an updatable path: {path}")


def _json(value: Any) -> Any:
    text = _str(value)
    return json.loads(text) if text else None


def _keys_from_json(raw: Any) -> Turn:
    """``keys_of`` the stored turn, without building the rest of it."""
    data = json.loads(raw)
    return Turn(
        role=None,
        content="",
        id=data["id"],
        session_id=data["session_id"],
        sequence=int(data["sequence"]),
        idempotency_key=data.get("idempotency_key", ""),
    )


def _decode(
    session_id: str, values: Sequence[Any], turns: Sequence[Any], *, keys_only: bool = False
) -> WorkingMemory | None:
    if all(value is None for value in values) and not turns:
        return None
    raw = dict(zip(FIELDS, values, strict=True))
    plan = _json(raw["active_plan"])
    tool = _json(raw["last_tool_result"])
    read_turn = _keys_from_json if keys_only else _turn_from_json
    return WorkingMemory(
        session_id=session_id,
        recent_turns=tuple(read_turn(turn) for turn in turns),
        summary=_str(raw["summary"]),
        active_plan=Plan(**plan) if plan else None,
        emotion_trajectory=tuple(
            EmotionReading(
                emotion=reading["emotion"],
                valence=reading["valence"],
                intensity=reading["intensity"],
                turn_id=reading["turn_id"],
                observed_at=_from_iso(reading["observed_at"]),
            )
            for reading in _json(raw["emotion_trajectory"]) or ()
        ),
        pending_slots=tuple(PendingSlot(**slot) for slot in _json(raw["pending_slots"]) or ()),
        last_tool_result=_tool_from_json(tool) if tool else None,
        turn_count=int(_str(raw["turn_count"]) or 0),
        context_fingerprint=_str(raw["context_fingerprint"]),
        updated_at=_from_ms(raw["updated_at"]),
        expires_at=_from_ms(raw["expires_at"]),
    )


def append_args(turn: Turn, *, max_turns: int, ttl: timedelta, now: datetime, turns: TurnsRead) -> list[Any]:
    """``APPEND_FUNCTION``'s arguments for ``turn``: its six, then the hash fields to read back."""
    ttl_ms = max(1, int(ttl.total_seconds() * 1000))
    read_turns = "" if turns is TurnsRead.NONE else "1"
    return [turn_body(turn), max_turns, ttl_ms, _ms(now), turn.idempotency_key, read_turns, *FIELDS]


def decode_append(session_id: str, values: Sequence[Any], listed: Sequence[Any], turns: TurnsRead) -> WorkingMemory:
    """The working memory ``APPEND_FUNCTION`` read back (never none: it always leaves a turn behind)."""
    working_memory = _decode(session_id, values, listed, keys_only=turns is TurnsRead.KEYS)
    assert working_memory is not None
    return working_memory


class RedisWorkingMemoryStore:
    def __init__(
        self,
        redis_client: redis.Redis,
        *,
        key_prefix: str = MEMORY_PREFIX,
        lease_prefix: str = LEASE_PREFIX,
        calls: RedisCalls | None = None,
    ) -> None:
        self._redis = redis_client
        self._calls = calls or RedisCalls()
        self._prefix = key_prefix
        self._lease_prefix = lease_prefix
        self._append = redis_client.register_script(_APPEND)
        self._update = redis_client.register_script(_UPDATE)

    def keys(self, org_id: str, session_id: str) -> tuple[str, str]:
        """The hash and turn-list keys of (org, session)."""
        return memory_keys(self._prefix, org_id, session_id)

    def _script_keys(self, org_id: str, session_id: str) -> list[str]:
        return [*self.keys(org_id, session_id), fence_key(self._lease_prefix, org_id, session_id)]

    async def get(self, org_id: str, session_id: str, *, turns: TurnsRead = TurnsRead.ALL) -> WorkingMemory | None:
        hash_key, turns_key = self.keys(org_id, session_id)
        with self._calls.call():
            if turns is TurnsRead.NONE:
                # The hash alone: every write sets its fields, and both keys share one TTL.
                return _decode(session_id, await self._redis.hmget(hash_key, FIELDS), ())
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hmget(hash_key, FIELDS)
                pipe.lrange(turns_key, 0, -1)
                values, listed = await pipe.execute()
        return _decode(session_id, values, listed, keys_only=turns is TurnsRead.KEYS)

    async def append_turn(
        self,
        org_id: str,
        session_id: str,
        turn: Turn,
        *,
        max_turns: int,
        ttl: timedelta,
        now: datetime,
        fencing_token: int | None = None,
        turns: TurnsRead = TurnsRead.ALL,
    ) -> WorkingMemory:
        args = append_args(turn, max_turns=max_turns, ttl=ttl, now=now, turns=turns)
        with self._calls.call():
            values, listed = await self._append(
                keys=self._script_keys(org_id, session_id), args=[_token(fencing_token), *args]
            )
        return decode_append(session_id, values, listed, turns)

    async def update(
        self,
        org_id: str,
        session_id: str,
        changes: WorkingMemory,
        paths: Sequence[str],
        *,
        ttl: timedelta,
        now: datetime,
        fencing_token: int | None = None,
    ) -> WorkingMemory:
        ttl_ms = max(1, int(ttl.total_seconds() * 1000))
        mapping = {path: _encode(path, changes) for path in paths}
        mapping |= {"updated_at": str(_ms(now)), "expires_at": str(_ms(now) + ttl_ms)}
        pairs = [part for field, value in mapping.items() for part in (field, value)]
        with self._calls.call():
            values, turns = await self._update(
                keys=self._script_keys(org_id, session_id),
                args=[_token(fencing_token), ttl_ms, len(mapping), *pairs, *FIELDS],
            )
        working_memory = _decode(session_id, values, turns)
        assert working_memory is not None  # the HSET above just wrote it
        return working_memory

    async def clear(self, org_id: str, session_id: str) -> None:
        with self._calls.call():
            await self._redis.delete(*self.keys(org_id, session_id))
