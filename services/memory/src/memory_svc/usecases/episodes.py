"""Episodes: create (validate, embed the summary, write once), get, list newest first, open threads.

Every episode these return carries its salience as of the read (``domain/episode_salience.py``):
the stored copy is only as fresh as the last decay run. ``min_salience`` is first applied by the
index to the stored copy, which is never below the true value (salience only falls between two
uses, and a use rewrites it; only an import or a longer half-life can leave it lower, until the
next decay run), so nothing that qualifies is missed; what it lets through is then checked at
its true value.

Page tokens (``lore_runtime.page_tokens``) hold the keyset position of the last result, sealed
with the org and a fingerprint of the query's filters (the scope match included), so a token is
only accepted by the query and the org that issued it. Anything else is
``InvalidArgument("page_token")``.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.clock import Clock
from lore_runtime.page_tokens import PageTokens, fingerprint
from opentelemetry import trace

from memory_svc.domain.episode import (
    Episode,
    EpisodeDraft,
    EpisodeThread,
    new_episode,
    resolve_thread,
    rewritten,
    thread_at,
)
from memory_svc.domain.episode_salience import as_of
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodeIndex, ThreadCursor

tracer = trace.get_tracer(__name__)

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_THREAD_INDEX = 1_000
# Index reads one ListEpisodes page may take when ``min_salience`` drops episodes the stored copy
# let through; past it the page comes back short, with a token that goes on from where it stopped.
MAX_LIST_ROUNDS = 4


@dataclass(frozen=True, slots=True)
class PageRequest:
    """One page of a listing as a caller asks for it: what ``scope`` selects, read with ``scope_match``
    (browse: those sharing each id it sets; context: what a context for it may show), ``page_size``
    of them (0: the default) after the page ``page_token`` ends ("": from the first)."""

    scope: Scope
    page_size: int = 0
    page_token: str = ""
    scope_match: ScopeMatch = ScopeMatch.BROWSE


@dataclass(frozen=True, slots=True)
class EpisodeList:
    episodes: list[Episode]
    next_page_token: str


@dataclass(frozen=True, slots=True)
class ThreadList:
    threads: list[EpisodeThread]
    next_page_token: str


async def embed_episodes(episodes: Sequence[Episode], embedder: Embedder) -> np.ndarray:
    """One dense row per episode, of its summary (what CreateEpisode and Reindex store)."""
    return await embedder.embed([episode.summary for episode in episodes])


async def create_episode(
    org_id: str,
    draft: EpisodeDraft,
    request_id: str,
    *,
    index: EpisodeIndex,
    embedder: Embedder,
    clock: Clock,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> Episode:
    """Validate, embed the summary and write. A retry (same org, conversation and request id)
    returns the episode already stored (its salience as of now), without embedding or writing again."""
    now = clock.now()
    episode = new_episode(org_id, draft, request_id, now)
    with tracer.start_as_current_span("memory.create_episode") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.episode_id", episode.id)
        existing = await index.get(org_id, episode.id)
        if existing is not None:
            span.set_attribute("lore.replayed", True)
            return as_of(existing, now, half_life_days)
        (vector,) = await embed_episodes([episode], embedder)
        await index.upsert(episode, vector)
    return episode


async def get_episode(
    org_id: str,
    episode_id: str,
    *,
    index: EpisodeIndex,
    clock: Clock,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> Episode:
    return as_of(await _stored_episode(org_id, episode_id, index), clock.now(), half_life_days)


async def _stored_episode(org_id: str, episode_id: str, index: EpisodeIndex) -> Episode:
    found = await index.get(org_id, episode_id) if episode_id else None
    if found is None:
        # Another org's id is indistinguishable from a missing one; the gateway answers this very error
        # for another user's episode (gateway_svc.api.auth.user_pin), so the two stay one.
        raise errors.NotFound(f"episode {episode_id} not found", reason="EPISODE_NOT_FOUND")
    return found


async def resolve_episode_thread(
    org_id: str, episode_id: str, thread_index: int, resolution: str, *, index: EpisodeIndex, embedder: Embedder
) -> EpisodeThread:
    """Mark thread ``thread_index`` of the episode resolved; a replay changes nothing.

    The episode is rewritten whole (the index has no partial update), with its summary's vector
    recomputed: the same text gives the same vector, so recall is unchanged.
    """
    episode = await _stored_episode(org_id, episode_id, index)
    resolved, changed = resolve_thread(episode, thread_index, resolution)
    if changed:
        with tracer.start_as_current_span("memory.resolve_thread") as span:
            span.set_attribute("lore.org_id", org_id)
            span.set_attribute("lore.episode_id", episode.id)
            (vector,) = await embed_episodes([resolved], embedder)
            await index.upsert(resolved, vector)
    return thread_at(resolved, thread_index)


async def rewrite_episode(
    org_id: str,
    episode_id: str,
    draft: EpisodeDraft,
    *,
    index: EpisodeIndex,
    embedder: Embedder,
    clock: Clock,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> Episode:
    """The episode saying what ``draft`` says, its summary embedded again (``domain.episode.rewritten``).
    The same content again writes nothing."""
    episode = await _stored_episode(org_id, episode_id, index)
    changed = rewritten(episode, draft)
    if changed != episode:
        with tracer.start_as_current_span("memory.rewrite_episode") as span:
            span.set_attribute("lore.org_id", org_id)
            span.set_attribute("lore.episode_id", episode.id)
            (vector,) = await embed_episodes([changed], embedder)
            await index.upsert(changed, vector)
    return as_of(changed, clock.now(), half_life_days)


async def delete_episode(org_id: str, episode_id: str, *, index: EpisodeIndex) -> bool:
    """Delete the episode; False when ``org_id`` holds no such episode (gone already, another org's)."""
    if not episode_id:
        raise errors.InvalidArgument("id", "name the episode to delete")
    with tracer.start_as_current_span("memory.delete_episode") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.episode_id", episode_id)
        return await index.delete(org_id, episode_id)


def page_size_of(page_size: int) -> int:
    """0 means the default (20); above the maximum (100) is coerced to it (AIP-158)."""
    if page_size < 0:
        raise errors.InvalidArgument("page_size", f"must not be negative (0 means {DEFAULT_PAGE_SIZE})")
    return min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


async def list_episodes(
    org_id: str,
    request: PageRequest,
    *,
    index: EpisodeIndex,
    tokens: PageTokens,
    clock: Clock,
    ended_after: datetime | None = None,
    min_salience: float | None = None,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> EpisodeList:
    """One page of the episodes ``request`` selects, newest first, each with its salience now;
    ``min_salience`` keeps those at least that salient now."""
    size = page_size_of(request.page_size)
    if min_salience is not None and not (math.isfinite(min_salience) and min_salience >= 0):
        raise errors.InvalidArgument("min_salience", "must be a non-negative number")
    key = _filter_key(
        "episodes",
        request,
        ended_after.astimezone(UTC).isoformat() if ended_after is not None else None,
        min_salience,
    )
    position = _cursor(tokens.open(request.page_token, org_id, "episodes", key)) if request.page_token else None
    cursor = EpisodeCursor(position["t"], position["i"]) if position else None
    now = clock.now()
    kept: list[Episode] = []
    for _ in range(MAX_LIST_ROUNDS):
        page = await index.list(
            org_id,
            request.scope,
            size,
            cursor,
            ended_after=ended_after,
            min_salience=min_salience,
            scope_match=request.scope_match,
        )
        for seen, stored in enumerate(page.episodes, start=1):
            cursor = EpisodeCursor(stored.ended_at, stored.id)
            episode = as_of(stored, now, half_life_days)
            if min_salience is None or episode.current_salience >= min_salience:
                kept.append(episode)
            if len(kept) == size:
                more = seen < len(page.episodes) or page.next_cursor is not None
                return EpisodeList(kept, _seal(tokens, org_id, key, cursor) if more else "")
        if page.next_cursor is None:
            return EpisodeList(kept, "")
        cursor = page.next_cursor
    return EpisodeList(kept, _seal(tokens, org_id, key, cursor) if cursor is not None else "")


async def list_open_threads(
    org_id: str, request: PageRequest, *, index: EpisodeIndex, tokens: PageTokens
) -> ThreadList:
    """One page of the open threads of the episodes ``list_episodes`` would select."""
    size = page_size_of(request.page_size)
    key = _filter_key("threads", request)
    position = (
        _cursor(tokens.open(request.page_token, org_id, "threads", key), with_thread=True)
        if request.page_token
        else None
    )
    cursor = ThreadCursor(position["t"], position["i"], position["x"]) if position else None
    page = await index.list_open_threads(org_id, request.scope, size, cursor, scope_match=request.scope_match)
    token = ""
    if page.next_cursor is not None:
        after = page.next_cursor
        token = tokens.seal(org_id, "threads", key, _position(after.ended_at, after.episode_id, after.thread_index))
    return ThreadList(page.threads, token)


# --------------------------------------------------------------------------- page tokens


def _seal(tokens: PageTokens, org_id: str, key: str, after: EpisodeCursor) -> str:
    return tokens.seal(org_id, "episodes", key, _position(after.ended_at, after.episode_id))


def _filter_key(kind: str, request: PageRequest, *filters: Any) -> str:
    return fingerprint(kind, request.scope.as_filter(), str(request.scope_match), *filters)


def _position(ended_at: datetime, episode_id: str, thread_index: int | None = None) -> dict[str, Any]:
    position: dict[str, Any] = {"t": ended_at.astimezone(UTC).isoformat(), "i": episode_id}
    if thread_index is not None:
        position["x"] = thread_index
    return position


def _cursor(position: dict[str, Any], *, with_thread: bool = False) -> dict[str, Any]:
    invalid = errors.InvalidArgument("page_token", "is not a page token this service issued")
    try:
        ended_at = datetime.fromisoformat(position["t"])
        episode_id = str(uuid.UUID(position["i"]))
        thread_index = int(position["x"]) if with_thread else None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise invalid from None
    if ended_at.tzinfo is None or (thread_index is not None and not 0 <= thread_index <= MAX_THREAD_INDEX):
        raise invalid
    return {"t": ended_at.astimezone(UTC), "i": episode_id, "x": thread_index}
