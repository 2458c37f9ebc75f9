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
  searched, listed) is one GetMemory by the id it remembers; any other is a listing of its scope's
  facts (500 a page), which remembers every item it reads.
- ``search`` with ``query``: one Recall of the 100 best matches of the prefix's scope, then the
  prefix and ``filter`` applied to them; without: a listing of the scope, newest first.
- ``list_namespaces``: a listing of the scope the prefix names (of everything the credential sees
  when it names none): Lore keeps no index of namespaces.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
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


class LoreStore(BaseStore):
    """A LangGraph store on Lore's memory.

    ``clients``: a ``LoreClient`` (for ``abatch``: ``ainvoke``, ``astream``, ``aput`` …), a
    ``SyncLoreClient`` (for ``batch``: ``invoke``, ``put`` …), or both, on the same credential.
    ``fields``: the value's paths whose text is embedded and searched (LangGraph's path syntax;
    ``$``, the whole value as JSON, by default); ``put(..., index=[...])`` chooses per item, and
    ``index=False`` falls back to the whole value (Lore embeds every memory).

    A credential pinned to one user (a JWT with the user claim) makes the gateway refuse any
    namespace of another user (403 ``USER_PINNED``): the wall then holds even if the app's
    namespace is wrong. TTLs are not supported (Lore decays salience; it never expires an item).
    """

    supports_ttl = False

    def __init__(self, *clients: LoreClient | SyncLoreClient, fields: Sequence[str] = ("$",)) -> None:
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
        self.fields = tuple(fields)
        # (namespace, key) -> memory id: ids never change (org, scope and key fix them), so an
        # entry is never wrong; an erased item answers 404 and reads as absent.
        self._ids: OrderedDict[tuple[tuple[str, ...], str], str] = OrderedDict()
        self._ids_lock = threading.Lock()

    # -- the two flavours -------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        if self._sync is None:
            raise TypeError(
                "LoreStore.batch (invoke, put, get …) needs a SyncLoreClient: LoreStore(..., SyncLoreClient(url, key))"
            )
        return run_sync(self._batch(list(ops)), self._sync)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self._async is None:
            raise TypeError(
                "LoreStore.abatch (ainvoke, aput, aget …) needs a LoreClient: LoreStore(LoreClient(url, key), ...)"
            )
        return await run(self._batch(list(ops)), self._async)

    # -- one batch ----------------------------------------------------------------------------

    def _batch(self, ops: list[Op]) -> Plan:
        """Reads first, then writes (the last put of a key wins), as ``InMemoryStore`` does: a
        batch's reads see the store as it was before its writes."""
        for op in ops:
            if not isinstance(op, GetOp | SearchOp | ListNamespacesOp | PutOp):
                raise ValueError(f"unknown store operation: {type(op).__name__}")
            validate_op_namespace(op)
        puts = {(tuple(op.namespace), op.key): op for op in ops if isinstance(op, PutOp)}
        writes = [(op, self._written(op)) for op in puts.values()]  # refused before anything is sent
        results: list[Result] = [None] * len(ops)
        gets = {position: op for position, op in enumerate(ops) if isinstance(op, GetOp)}
        found = yield from self._get_many([(op.namespace, op.key) for op in gets.values()])
        for position, op in gets.items():
            results[position] = _item(found.get((tuple(op.namespace), op.key)))
        for position, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[position] = yield from self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[position] = yield from self._list_namespaces(op)
        for op, written in writes:
            if written is None:
                yield from self._delete(op)
        yield from self._put_all([(op, written) for op, written in writes if written is not None])
        return results

    # -- reading -------------------------------------------------------------------------------

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

    def _read(self, memory: Memory) -> StoredItem | None:
        """The live store item ``memory`` holds (``None``: another memory, or an archived item)."""
        item = s.decode(memory)
        if item is None:
            return None
        self._remember(item.namespace, item.key, item.memory_id)
        return None if memory.status == ARCHIVED else item

    def _scan(self, scope: dict[str, str]) -> Plan:
        """Every live item of the store in ``scope`` (and the scopes under it), newest first."""
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
            items += [item for item in map(self._read, page.items) if item is not None]
            if not page.next_page_token or page.next_page_token == token:
                return items
            token = page.next_page_token

    def _get_many(self, wanted: list[tuple[Sequence[str], str]]) -> Plan:
        """The live items of ``wanted`` (namespace, key) that exist: a GetMemory for each known id,
        one listing for each scope holding unknown ones."""
        found: dict[tuple[tuple[str, ...], str], StoredItem] = {}
        unknown: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
        for namespace, key in dict.fromkeys((tuple(n), k) for n, k in wanted):
            scope = self._scope(namespace)
            memory_id = self._ids.get((namespace, key))
            if memory_id is None:
                unknown[tuple(sorted(scope.items()))] = scope
                continue
            item = yield from self._by_id(memory_id)
            if item is not None and (item.namespace, item.key) == (namespace, key):
                found[(namespace, key)] = item
        for scope in unknown.values():
            for item in (yield from self._scan(scope)):
                found.setdefault((item.namespace, item.key), item)
        return found

    def _by_id(self, memory_id: str) -> Plan:
        try:
            memory = yield from call("get_memory", memory_id)
        except LoreApiError as error:
            if error.status == 404:
                return None  # erased (ForgetSubject): gone for good
            raise
        return self._read(memory)

    def _search(self, op: SearchOp) -> Plan:
        scope, _ = s.scope_of(op.namespace_prefix)
        if op.limit <= 0:
            return []

        def selected(item: StoredItem | None) -> bool:
            return (
                item is not None
                and s.under(item.namespace, op.namespace_prefix)
                and s.matches_filter(item.value, op.filter)
            )

        if not op.query:
            items = [item for item in (yield from self._scan(scope)) if selected(item)]
            items.sort(key=lambda item: item.updated_at or item.created_at, reverse=True)
            return [_search_item(item, None) for item in items[op.offset : op.offset + op.limit]]
        hits = yield from call(
            "search",
            op.query,
            scope,
            k=SEARCH_K,
            memory_types=ITEM_TYPE,
            statuses=PRESENT,
            record_access=False,  # 100 candidates are read to return a few: none is a use of the memory
        )
        kept = [(item, hit.score) for hit in hits if selected(item := self._read(hit.memory))]
        return [_search_item(item, score) for item, score in kept[op.offset : op.offset + op.limit]]

    def _list_namespaces(self, op: ListNamespacesOp) -> Plan:
        conditions = op.match_conditions or ()
        prefixes = [c.path for c in conditions if c.match_type == "prefix"]
        scope, _ = s.scope_of(prefixes[0]) if prefixes else ({}, 0)
        namespaces = {item.namespace for item in (yield from self._scan(scope))}
        chosen = [n for n in namespaces if all(s.matches_path(n, c.match_type, c.path) for c in conditions)]
        if op.max_depth is not None:
            chosen = list({n[: op.max_depth] for n in chosen})
        return sorted(chosen)[op.offset : op.offset + op.limit]

    # -- writing -------------------------------------------------------------------------------

    def _texts(self, op: PutOp) -> Callable[[dict[str, Any]], list[str]]:
        paths = ("$",) if op.index is False else self.fields if op.index is None else op.index

        def texts_of(value: dict[str, Any]) -> list[str]:
            return [text for path in paths for text in get_text_at_path(value, path)]

        return texts_of

    def _written(self, op: PutOp) -> NewMemory | None:
        """The memory a put writes (``None`` for a delete); raises for a namespace or value Lore
        cannot hold, naming the rule."""
        namespace = tuple(op.namespace)
        scope = self._scope(namespace)
        if op.value is None:
            return None
        content, metadata = s.encode(namespace, op.key, op.value, self._texts(op))
        return NewMemory(
            content=content,
            memory_type=ITEM_TYPE,
            scope=scope,
            metadata=metadata,
            idempotency_key=s.idempotency_key(namespace, op.key),
        )

    def _put_all(self, writes: list[tuple[PutOp, NewMemory]]) -> Plan:
        """Up to 100 puts in one Remember (one embedding call on the server). Remember writes all of
        a call or nothing, so when one key already holds another value the chunk goes put by put."""
        for start in range(0, len(writes), REMEMBER_BATCH):
            chunk = writes[start : start + REMEMBER_BATCH]
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
            yield from call("update_memory", memory_id, **changes)

    def _delete(self, op: PutOp) -> Plan:
        namespace = tuple(op.namespace)
        found = yield from self._get_many([(namespace, op.key)])
        item = found.get((namespace, op.key))
        if item is not None:
            yield from call("forget_memory", item.memory_id)  # archived: out of every read, kept for audit


def _item(item: StoredItem | None) -> Item | None:
    if item is None:
        return None
    return Item(
        value=item.value, key=item.key, namespace=item.namespace, created_at=item.created_at, updated_at=item.updated_at
    )  # type: ignore[arg-type]


def _search_item(item: StoredItem, score: float | None) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)  # type: ignore[arg-type]
