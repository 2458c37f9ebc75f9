"""``LoreStore``: a LangGraph ``BaseStore`` whose items are Lore memories.

    from lore_client import LoreClient, SyncLoreClient
    from lore_client.integrations.langgraph_store import LoreStore

    store = LoreStore(LoreClient(url, key), SyncLoreClient(url, key))  # abatch and batch
    graph = builder.compile(store=store)
    store.put(("users", "u-1", "memories"), "diet", {"text": "Vegetarian since 2019."})
    store.search(("users", "u-1"), query="what does she eat?")

How a namespace maps to a scope and how an item is stored: ``store_items``. Every operation is
written once, as a plan of client calls (``lore_client.plans``): ``abatch`` runs it on a
``LoreClient``, ``batch`` on a ``SyncLoreClient`` (the two share every method name and error).

What each operation costs (docs/integrations.md):
- ``put``: one Remember (the same write again is a replay); a changed value one UpdateMemory more,
  by the id the deterministic key fixed (the replay answers it, or the 409 naming it). A batch's
  puts share one Remember per 100 until one of them changes an existing key.
- ``get`` / ``delete``: Lore finds a memory by id, not by key, and a client cannot compute the id
  (it hashes the org, which the credential hides). So an item this store has seen (put, got,
  searched, listed) is one GetMemory by the id it remembers; any other (or more than a few of one
  scope in a batch) a listing of its scope's facts (500 a page), which remembers every item it reads.
- ``search`` with ``query``: one Recall of the 100 best matches of the prefix's scope, then the
  prefix and ``filter`` applied to them; without: a listing of the scope, newest update first.
- ``list_namespaces``: a listing of the scope the prefix names (of everything the credential sees
  when it names none): Lore keeps no index of namespaces.

A batch lists a scope at most once, and the operations ``aput``, ``aget`` … that callers start at
the same time (``asyncio.gather`` of thousands) run as one batch, so they cost a few calls.
"""

from __future__ import annotations

import asyncio
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
        validate_op_namespace,
    )
except ImportError as error:  # pragma: no cover - exercised in a subprocess without the extra
    raise ImportError(
        'lore_client.integrations.langgraph_store needs LangGraph: pip install "lore-client[langgraph]"',
        name=error.name,
    ) from error

from lore_client.client import LoreClient
from lore_client.errors import LoreApiError
from lore_client.inputs import NewMemory
from lore_client.integrations import store_items as s
from lore_client.integrations.store_items import StoredItem
from lore_client.models import Memory
from lore_client.plans import Plan, call, run, run_sync
from lore_client.sync_client import SyncLoreClient

# Every status but archived is a stored item: Lore's own lifecycle may mark an item consolidated
# (a near-duplicate folded) or superseded (a later statement replaced it) — it still holds its
# value. Only this store's delete archives.
PRESENT = ("active", "warm", "consolidated", "superseded", "completed")
ARCHIVED = "MEMORY_STATUS_ARCHIVED"
ACTIVE = "MEMORY_STATUS_ACTIVE"
# What the app stores about a user is what Lore calls a fact: its contexts show it as one, and the
# store reads only memories of this type (a type cannot change by UpdateMemory).
ITEM_TYPE = "fact"
PAGE_SIZE = 500  # the memory service's largest ListMemories page
SEARCH_K = 100  # Recall's largest k
REMEMBER_BATCH = 100  # Remember's largest batch
KNOWN_IDS = 10_000
RATE_LIMITED_REPEATS = 5  # a write this store repeats after a 429 (_setting)
MAX_RATE_LIMITED_WAIT = 30.0
# Threads calling ``batch`` queue their operations; one of them sends what has queued as one batch.
# Before it does, it waits up to GATHERING_WAIT seconds for as many callers as the last batch had
# (the threads that batch answered, coming back with their next operation).
GATHERING_WAIT = 0.02
BY_ID_AT_MOST = 4  # more known items of one scope in a batch: one listing rather than a GetMemory each


@dataclass
class _Reading:
    """What one batch has read: each scope listed once, the clock read once, the expired items met
    (archived at the batch's end) and the items whose expiry a read moves."""

    now: float
    listings: dict[tuple[tuple[str, str], ...], list[StoredItem]] = field(default_factory=dict)
    expired: dict[str, StoredItem] = field(default_factory=dict)
    refreshed: dict[str, StoredItem] = field(default_factory=dict)


class _Turn:
    """One thread's batch waiting for the thread sending batches (``LoreStore.batch``): answered, or
    asked to send the next batch itself (``leads``)."""

    def __init__(self, ops: list[Op]) -> None:
        self.ops = ops
        self.done = threading.Event()
        self.leads = False
        self.results: list[Result] | None = None
        self.error: Exception | None = None

    def answer(self) -> list[Result]:
        if self.error is not None:
            raise self.error
        assert self.results is not None
        return self.results


class LoreStore(BaseStore):
    """A LangGraph store on Lore's memory.

    ``clients``: a ``LoreClient`` (for ``abatch``: ``ainvoke``, ``astream``, ``aput`` …), a
    ``SyncLoreClient`` (for ``batch``: ``invoke``, ``put`` …), or both, on the same credential.
    ``index``: LangGraph's ``IndexConfig``; its ``fields`` are the value's paths whose text is
    embedded and searched (LangGraph's path syntax; ``$``, the whole value as JSON, by default).
    ``put(..., index=[...])`` chooses per item, and ``index=False`` stores an item that a search by
    meaning does not find (only as an unscored filler, as ``InMemoryStore`` answers). Lore embeds
    with its own model: an ``embed`` or ``dims`` is ignored with a warning. ``fields`` is the same
    as ``index={"fields": ...}``.
    ``ttl``: LangGraph's ``TTLConfig`` (``default_ttl`` in minutes, ``refresh_on_read``); an
    expired item is never read again and is archived when a read meets it.

    A credential pinned to one user (a JWT with the user claim) makes the gateway refuse any
    namespace of another user (403 ``USER_PINNED``): the wall then holds even if the app's
    namespace is wrong.
    """

    supports_ttl = True

    def __init__(
        self,
        *clients: LoreClient | SyncLoreClient,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        fields: Sequence[str] | None = None,
    ) -> None:
        self._async: LoreClient | None = None
        self._sync: SyncLoreClient | None = None
        for client in clients:
            if isinstance(client, LoreClient) and self._async is None:
                self._async = client
            elif isinstance(client, SyncLoreClient) and self._sync is None:
                self._sync = client
            else:
                raise TypeError("LoreStore takes one LoreClient, one SyncLoreClient, or one of each")
        if not clients:
            raise TypeError("LoreStore needs a LoreClient (abatch), a SyncLoreClient (batch), or both")
        if index is not None and ("embed" in index or "dims" in index):
            warnings.warn(
                "LoreStore: Lore embeds every item with its own model; index's embed and dims are ignored",
                stacklevel=2,
            )
        self.index_config = dict(index) if index is not None else None
        self.fields = tuple(fields or (index or {}).get("fields") or ("$",))
        self.ttl_config = ttl
        self._clock: Callable[[], float] = time.time
        # (namespace, key) -> memory id: ids never change (org, scope and key fix them), so an
        # entry is never wrong; an erased item answers 404 and reads as absent.
        self._ids: OrderedDict[tuple[tuple[str, ...], str], str] = OrderedDict()
        self._ids_lock = threading.Lock()
        # Operations waiting to run as one batch, per event loop (abatch).
        self._waiting: dict[asyncio.AbstractEventLoop, list[tuple[list[Op], asyncio.Future[list[Result]]]]] = {}
        self._sending: set[asyncio.Task[None]] = set()
        # Batches threads started that no batch has sent yet (batch), and whether a thread sends them.
        self._turns: list[_Turn] = []
        self._turns_ready = threading.Condition()
        self._leading = False
        self._callers = 1  # callers the last batch sent had

    # -- the two flavours -------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs ``ops``. Operations that threads start at the same time go out as one batch, as
        ``abatch`` sends an event loop's: each thread queues its own, and one of them (the first to
        find no batch being gathered) waits a moment for the others — as many callers as the last
        batch had, at most ``GATHERING_WAIT`` — and sends them together, then hands the next batch
        to a thread still waiting. Each caller's operations are checked on their own first; a call
        that fails a joint batch is retried caller by caller."""
        if self._sync is None:
            raise TypeError(
                "LoreStore.batch (invoke, put, get …) needs a SyncLoreClient: LoreStore(..., SyncLoreClient(url, key))"
            )
        ops = list(ops)
        self._check(ops)
        turn = _Turn(ops)
        with self._turns_ready:
            self._turns.append(turn)
            self._turns_ready.notify_all()
            leading = turn.leads = not self._leading
            self._leading = True
        if not leading:
            turn.done.wait()  # answered, or asked to send the next batch
            if not turn.leads:
                return turn.answer()
        self._lead()
        return turn.answer()

    def _lead(self) -> None:
        """Send one batch of what has queued (this thread's own operations among it), then hand the
        next to a thread whose operations are still queued."""
        with self._turns_ready:
            self._turns_ready.wait_for(lambda: len(self._turns) >= self._callers, timeout=GATHERING_WAIT)
            turns, self._turns = self._turns, []
            self._callers = len(turns)
        try:
            self._send_sync(turns)
        except BaseException:  # interrupted: no caller is left waiting for an answer
            for waiting in turns:
                if not waiting.done.is_set():
                    waiting.error = RuntimeError("LoreStore: the thread sending this batch was interrupted")
                    waiting.done.set()
            raise
        finally:
            with self._turns_ready:
                if self._turns:  # they queued meanwhile: the first of them sends them
                    self._turns[0].leads = True
                    self._turns[0].done.set()
                else:
                    self._leading = False

    def _send_sync(self, turns: list[_Turn]) -> None:
        assert self._sync is not None
        try:
            results = run_sync(self._batch([op for waiting in turns for op in waiting.ops]), self._sync)
        except Exception as error:
            if len(turns) == 1:
                turns[0].error = error
                turns[0].done.set()
                return
            for waiting in turns:  # on its own, each caller gets its own answer or error
                try:
                    waiting.results = run_sync(self._batch(waiting.ops), self._sync)
                except Exception as own:
                    waiting.error = own
                waiting.done.set()
            return
        start = 0
        for waiting in turns:
            waiting.results = results[start : start + len(waiting.ops)]
            start += len(waiting.ops)
            waiting.done.set()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs ``ops`` together with every other ``abatch`` (``aput``, ``aget`` …) started on this
        event loop before the batch goes out: thousands of concurrent operations cost a few calls.
        Each caller's operations are checked on their own first, so a bad one fails its caller only;
        a call that fails the joint batch is retried caller by caller."""
        if self._async is None:
            raise TypeError(
                "LoreStore.abatch (ainvoke, aput, aget …) needs a LoreClient: LoreStore(LoreClient(url, key), ...)"
            )
        ops = list(ops)
        self._check(ops)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[Result]] = loop.create_future()
        waiting = self._waiting.setdefault(loop, [])
        waiting.append((ops, answer))
        if len(waiting) == 1:
            # The task runs after every task already ready has queued its operations.
            sending = loop.create_task(self._send(loop))
            self._sending.add(sending)
            sending.add_done_callback(self._sending.discard)
        return await answer

    async def _send(self, loop: asyncio.AbstractEventLoop) -> None:
        waiting = self._waiting.pop(loop, [])
        assert self._async is not None
        try:
            results = await run(self._batch([op for ops, _ in waiting for op in ops]), self._async)
        except Exception as error:
            if len(waiting) == 1:
                _settle_future(waiting[0][1], error=error)
                return
            for ops, answer in waiting:  # on its own, each caller gets its own answer or error
                try:
                    _settle_future(answer, results=await run(self._batch(ops), self._async))
                except Exception as own:
                    _settle_future(answer, error=own)
            return
        except BaseException as error:  # cancelled: so are the callers
            for _, answer in waiting:
                answer.cancel()
            raise error
        start = 0
        for ops, answer in waiting:
            _settle_future(answer, results=results[start : start + len(ops)])
            start += len(ops)

    def _check(self, ops: list[Op]) -> None:
        """Refuse a batch Lore cannot run, before anything is sent."""
        for op in ops:
            if not isinstance(op, GetOp | SearchOp | ListNamespacesOp | PutOp):
                raise ValueError(f"unknown store operation: {type(op).__name__}")
            validate_op_namespace(op)
            if isinstance(op, PutOp):
                self._written(op, 0.0)

    # -- one batch ----------------------------------------------------------------------------

    def _batch(self, ops: list[Op]) -> Plan:
        """Reads first, then writes (the last put of a key wins), as ``InMemoryStore`` does: a
        batch's reads see the store as it was before its writes."""
        reading = _Reading(now=self._clock())
        puts = {(tuple(op.namespace), op.key): op for op in ops if isinstance(op, PutOp)}
        writes = [(op, self._written(op, reading.now)) for op in puts.values()]
        results: list[Result] = [None] * len(ops)
        for scope in self._listed_anyway(ops):  # first: the gets of those scopes then read the listing
            yield from self._scan(scope, reading)
        gets = {position: op for position, op in enumerate(ops) if isinstance(op, GetOp)}
        found = yield from self._get_many([(op.namespace, op.key) for op in gets.values()], reading)
        for position, op in gets.items():
            item = found.get((tuple(op.namespace), op.key))
            if item is not None and op.refresh_ttl:
                item = self._refresh(item, reading)
            results[position] = _item(item)
        searched: dict[tuple[Any, ...], list[SearchItem]] = {}
        for position, op in enumerate(ops):
            if isinstance(op, SearchOp):
                same = (op.namespace_prefix, repr(op.filter), op.limit, op.offset, op.query, op.refresh_ttl)
                if same not in searched:
                    searched[same] = yield from self._search(op, reading)
                results[position] = list(searched[same])
            elif isinstance(op, ListNamespacesOp):
                results[position] = yield from self._list_namespaces(op, reading)
        for item in reading.refreshed.values():
            yield from self._write_refresh(item, reading)
        for item in reading.expired.values():
            yield from self._archive(item.memory_id)
        # A delete archives by the id this store knows (archiving twice is harmless); it looks up
        # only the others (together).
        deletes = [(tuple(op.namespace), op.key) for op, written in writes if written is None]
        # An item its scope's listing (in this batch) does not hold is archived or gone: nothing to do.
        deletes = [wanted for wanted in deletes if not self._listed_without(wanted, reading)]
        known = [memory_id for wanted in deletes if (memory_id := self._ids.get(wanted)) is not None]
        unknown = [wanted for wanted in deletes if wanted not in self._ids]
        gone = (yield from self._get_many(unknown, reading)) if unknown else {}
        for memory_id in dict.fromkeys([*known, *(item.memory_id for item in gone.values())]):
            if memory_id not in reading.expired:
                yield from self._archive(memory_id)
        yield from self._put_all([(op, written) for op, written in writes if written is not None])
        return results

    # -- reading -------------------------------------------------------------------------------

    def _listed_anyway(self, ops: list[Op]) -> list[dict[str, str]]:
        """The scopes this batch lists whatever else it does: a ``list_namespaces``' and a search's
        without a query."""
        scopes: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
        for op in ops:
            prefix: tuple[str, ...] | None = None
            if isinstance(op, SearchOp) and not op.query and op.limit > 0:
                prefix = tuple(op.namespace_prefix)
            elif isinstance(op, ListNamespacesOp):
                prefixes = [c.path for c in op.match_conditions or () if c.match_type == "prefix"]
                prefix = tuple(prefixes[0]) if prefixes else ()
            if prefix is not None:
                scope, _ = s.scope_of(prefix)
                scopes[tuple(sorted(scope.items()))] = scope
        return list(scopes.values())

    def _listed_without(self, wanted: tuple[tuple[str, ...], str], reading: _Reading) -> bool:
        """Whether this batch listed ``wanted``'s scope and found no live item of that key."""
        listed = reading.listings.get(tuple(sorted(self._scope(wanted[0]).items())))
        return listed is not None and all((item.namespace, item.key) != wanted for item in listed)

    def _scope(self, namespace: Sequence[str]) -> dict[str, str]:
        try:
            return s.scope_of_namespace(namespace)
        except s.UnmappableNamespace as error:
            raise InvalidNamespaceError(str(error)) from None

    def _remember(self, namespace: tuple[str, ...], key: str, memory_id: str) -> None:
        with self._ids_lock:  # batch may run on several threads at once
            self._ids[(namespace, key)] = memory_id
            self._ids.move_to_end((namespace, key))
            while len(self._ids) > KNOWN_IDS:
                self._ids.popitem(last=False)

    def _read(self, memory: Memory, reading: _Reading) -> StoredItem | None:
        """The live store item ``memory`` holds (``None``: another memory, an archived or an
        expired item; an expired one is archived at the batch's end)."""
        item = s.decode(memory)
        if item is None:
            return None
        self._remember(item.namespace, item.key, item.memory_id)
        if memory.status == ARCHIVED:
            return None
        if item.expired(reading.now):
            reading.expired[item.memory_id] = item
            return None
        return item

    def _scan(self, scope: dict[str, str], reading: _Reading) -> Plan:
        """Every live item of the store in ``scope`` (and the scopes under it), newest first; each
        scope listed once per batch."""
        listed = tuple(sorted(scope.items()))
        if listed in reading.listings:
            return reading.listings[listed]
        items: list[StoredItem] = []
        token = ""
        while True:
            page = yield from call(
                "list_memories",
                scope,
                memory_types=ITEM_TYPE,
                statuses=PRESENT,
                order_by="newest",
                page_size=PAGE_SIZE,
                page_token=token,
            )
            items += [item for item in (self._read(memory, reading) for memory in page.items) if item is not None]
            if not page.next_page_token or page.next_page_token == token:
                reading.listings[listed] = items
                return items
            token = page.next_page_token

    def _get_many(self, wanted: list[tuple[Sequence[str], str]], reading: _Reading) -> Plan:
        """The live items of ``wanted`` (namespace, key) that exist: a GetMemory for each known id
        (up to a few per scope), one listing for each scope holding the others."""
        found: dict[tuple[tuple[str, ...], str], StoredItem] = {}
        by_scope: dict[tuple[tuple[str, str], ...], list[tuple[tuple[str, ...], str]]] = {}
        scopes: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
        for namespace, key in dict.fromkeys((tuple(n), k) for n, k in wanted):
            scope = self._scope(namespace)
            scopes[tuple(sorted(scope.items()))] = scope
            by_scope.setdefault(tuple(sorted(scope.items())), []).append((namespace, key))
        for listed, keys in by_scope.items():
            known = [(self._ids.get(wanted_key), wanted_key) for wanted_key in keys]
            if listed not in reading.listings and len(keys) <= BY_ID_AT_MOST and all(i for i, _ in known):
                for memory_id, wanted_key in known:
                    item = yield from self._by_id(memory_id, reading)
                    if item is not None and (item.namespace, item.key) == wanted_key:
                        found[wanted_key] = item
                continue
            wanted_keys = set(keys)
            for item in (yield from self._scan(scopes[listed], reading)):
                if (item.namespace, item.key) in wanted_keys:
                    found.setdefault((item.namespace, item.key), item)
        return found

    def _by_id(self, memory_id: str | None, reading: _Reading) -> Plan:
        try:
            memory = yield from call("get_memory", memory_id)
        except LoreApiError as error:
            if error.status == 404:
                return None  # erased (ForgetSubject): gone for good
            raise
        return self._read(memory, reading)

    def _search(self, op: SearchOp, reading: _Reading) -> Plan:
        scope, _ = s.scope_of(op.namespace_prefix)
        if op.limit <= 0:
            return []

        def selected(item: StoredItem | None) -> bool:
            return (
                item is not None
                and s.under(item.namespace, op.namespace_prefix)
                and s.matches_filter(item.value, op.filter)
            )

        def answered(item: StoredItem, score: float | None) -> SearchItem:
            return _search_item(self._refresh(item, reading) if op.refresh_ttl else item, score)

        if not op.query:
            items = [item for item in (yield from self._scan(scope, reading)) if selected(item)]
            items.sort(key=lambda item: item.updated_at or item.created_at, reverse=True)
            return [answered(item, None) for item in items[op.offset : op.offset + op.limit]]
        hits = yield from call(
            "search",
            op.query,
            scope,
            k=SEARCH_K,
            memory_types=ITEM_TYPE,
            statuses=PRESENT,
            record_access=False,  # 100 candidates are read to return a few: none is a use of the memory
        )
        kept = [
            (item, hit.score)
            for hit in hits
            if selected(item := self._read(hit.memory, reading)) and item is not None and item.indexed
        ]
        chosen: list[tuple[StoredItem, float | None]] = list(kept[op.offset : op.offset + op.limit])
        if len(chosen) < op.limit:
            # As InMemoryStore: items without indexed text fill what the scored ones leave, unscored.
            unscored = [item for item in (yield from self._scan(scope, reading)) if not item.indexed and selected(item)]
            chosen += [(item, None) for item in unscored[: op.limit - len(chosen)]]
        return [answered(item, score) for item, score in chosen]

    def _list_namespaces(self, op: ListNamespacesOp, reading: _Reading) -> Plan:
        conditions = op.match_conditions or ()
        prefixes = [c.path for c in conditions if c.match_type == "prefix"]
        scope, _ = s.scope_of(prefixes[0]) if prefixes else ({}, 0)
        namespaces = {item.namespace for item in (yield from self._scan(scope, reading))}
        chosen = [n for n in namespaces if all(s.matches_path(n, c.match_type, c.path) for c in conditions)]
        if op.max_depth is not None:
            chosen = list({n[: op.max_depth] for n in chosen})
        return sorted(chosen)[op.offset : op.offset + op.limit]

    # -- expiry --------------------------------------------------------------------------------

    def _refresh(self, item: StoredItem, reading: _Reading) -> StoredItem:
        """``item`` with its expiry moved to a full TTL from now (written at the batch's end)."""
        if item.ttl is None:
            return item
        reading.refreshed[item.memory_id] = item
        return item

    def _write_refresh(self, item: StoredItem, reading: _Reading) -> Plan:
        entry = s.item_entry(indexed=item.indexed, ttl=item.ttl, now=reading.now, updated=item.updated_at)
        metadata = {**(item.metadata or {}), s.ITEM_KEY: entry or ""}
        try:
            yield from _setting("update_memory", item.memory_id, metadata=metadata)
        except LoreApiError as error:
            if error.status != 404:
                raise  # erased meanwhile: nothing to keep alive

    def _archive(self, memory_id: str) -> Plan:
        try:
            yield from _setting("forget_memory", memory_id)  # archived: out of every read, kept for audit
        except LoreApiError as error:
            if error.status != 404:
                raise

    # -- writing -------------------------------------------------------------------------------

    def _paths(self, op: PutOp) -> Sequence[str]:
        return () if op.index is False else self.fields if op.index is None else op.index

    def _written(self, op: PutOp, now: float) -> NewMemory | None:
        """The memory a put writes (``None`` for a delete); raises for a namespace or value Lore
        cannot hold, naming the rule."""
        namespace = tuple(op.namespace)
        scope = self._scope(namespace)
        if op.value is None:
            return None
        paths = self._paths(op)
        texts: list[str] = []

        def texts_of(value: dict[str, Any]) -> list[str]:
            texts.extend(text for path in paths for text in get_text_at_path(value, path) if text.strip())
            return texts

        content, metadata = s.encode(namespace, op.key, op.value, texts_of)  # refuses what JSON cannot hold
        entry = s.item_entry(indexed=bool(texts), ttl=op.ttl, now=now)
        if entry is not None:
            metadata[s.ITEM_KEY] = entry
        return NewMemory(
            content=content,
            memory_type=ITEM_TYPE,
            scope=scope,
            metadata=metadata,
            idempotency_key=s.idempotency_key(namespace, op.key),
        )

    def _put_all(self, writes: list[tuple[PutOp, NewMemory]]) -> Plan:
        """A key this store has seen is one UpdateMemory by its id (a put always moves the item's
        update time, as ``InMemoryStore``'s does); the others go up to 100 in one Remember (one
        embedding call on the server). Remember writes all of a call or nothing, so when one of
        those keys already holds another value the chunk goes put by put."""
        fresh: list[tuple[PutOp, NewMemory]] = []
        for op, memory in writes:
            memory_id = self._ids.get((tuple(op.namespace), op.key))
            if memory_id is None:
                fresh.append((op, memory))
                continue
            try:
                yield from self._settle(op, memory, None, memory_id)
            except LoreApiError as error:
                if error.status != 404:
                    raise
                yield from self._put(op, memory)  # erased: Remember says whether it may be written again
        for start in range(0, len(fresh), REMEMBER_BATCH):
            chunk = fresh[start : start + REMEMBER_BATCH]
            stored = None
            if len(chunk) > 1:
                try:
                    stored = yield from call("remember", [memory for _, memory in chunk])
                except LoreApiError as error:
                    if error.reason != "IDEMPOTENCY_KEY_REUSED":
                        raise
            if stored is None:
                for op, memory in chunk:
                    yield from self._put(op, memory)
                continue
            for (op, memory), answer in zip(chunk, stored, strict=True):
                yield from self._settle(op, memory, answer, answer.id)

    def _put(self, op: PutOp, memory: NewMemory) -> Plan:
        try:
            [stored] = yield from call("remember", memory)
        except LoreApiError as error:
            if error.reason != "IDEMPOTENCY_KEY_REUSED" or not error.metadata.get("id"):
                raise  # MEMORY_ERASED among them: an erased subject's item is never written again
            # The key wrote another value first: the same id, overwritten below.
            yield from self._settle(op, memory, None, error.metadata["id"])
            return
        yield from self._settle(op, memory, stored, stored.id)

    def _settle(self, op: PutOp, memory: NewMemory, stored: Memory | None, memory_id: str) -> Plan:
        """Make the memory ``memory_id`` hold ``memory`` when Remember answered it as it was
        (``stored``: a replay of an older state) or not at all (``None``: a 409 naming it)."""
        self._remember(tuple(op.namespace), op.key, memory_id)
        changes: dict[str, Any] = {}
        if stored is None or stored.content != memory.content:
            changes["content"] = memory.content
        if stored is None or stored.metadata != memory.metadata:
            changes["metadata"] = dict(memory.metadata)
        if stored is None or stored.status != ACTIVE:
            changes["status"] = "active"  # a put after a delete brings the item back
        if changes:
            yield from _setting("update_memory", memory_id, **changes)


def _setting(method: str, *args: Any, **kwargs: Any) -> Plan:
    """A call that sets what it names (UpdateMemory's fields, ForgetMemory): doing it twice is
    doing it once, so a 429 is waited out (``Retry-After``) and the call repeated, as the client
    repeats its GETs and keyed POSTs; the client itself never repeats a PATCH or DELETE."""
    for attempt in range(RATE_LIMITED_REPEATS + 1):
        try:
            return (yield from call(method, *args, **kwargs))
        except LoreApiError as error:
            wait = error.retry_after if error.retry_after is not None else 0.25 * 2**attempt
            if error.status != 429 or attempt == RATE_LIMITED_REPEATS or wait > MAX_RATE_LIMITED_WAIT:
                raise
            yield from call("_sleep", wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _item(item: StoredItem | None) -> Item | None:
    if item is None:
        return None
    return Item(
        value=item.value, key=item.key, namespace=item.namespace, created_at=item.created_at, updated_at=item.updated_at
    )  # type: ignore[arg-type]


def _search_item(item: StoredItem, score: float | None) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)  # type: ignore[arg-type]


def _settle_future(
    answer: asyncio.Future[list[Result]], *, results: Any = None, error: Exception | None = None
) -> None:
    if answer.done():  # the caller was cancelled meanwhile
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(results)
