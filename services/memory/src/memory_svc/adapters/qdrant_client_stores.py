"""The items and episodes collections on a Qdrant server (``LORE_QDRANT_URL``): opened at start-up
even when their vectors come from another embedding model (reads work, vector work is refused
until ``lore reindex``), rebuilt into new collections and swapped in behind an alias.

A rebuild of ``memory_items`` writes to ``memory_items__<model-slug>`` (``…__<slug>__2`` when the
live collection already has that name: a forced reindex), recording its progress in the new
collection's metadata (``lore_reindex``) after each page. The swap:

- ``memory_items`` is already an alias: one ``update_collection_aliases`` call moves it (atomic on
  the server), then the old collection is deleted;
- ``memory_items`` is a plain collection (never reindexed): the new collection is marked
  (``lore_reindex_swap``), the old collection deleted and the alias created. A crash between the
  two leaves no ``memory_items``; the next start-up finds the marked collection and creates the
  alias (``finish_alias_swap``).

The stores keep addressing ``memory_items``, so after a swap they read the new collection.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from lore_runtime.errors import FailedPrecondition
from qdrant_client import AsyncQdrantClient, models

from memory_svc.adapters.collection_rebuild import (
    STALE_REASONS,
    CollectionRebuild,
    open_live,
    progress_as_dict,
    progress_from_dict,
)
from memory_svc.adapters.qdrant_client_common import translated
from memory_svc.adapters.qdrant_client_episodes import QdrantClientEpisodeIndex
from memory_svc.adapters.qdrant_client_index import QdrantClientMemoryIndex
from memory_svc.usecases.guarded_stores import GuardedEpisodeIndex, GuardedMemoryIndex, VectorState
from memory_svc.usecases.maintenance_ports import PurgedStore, RebuildProgress

log = logging.getLogger(__name__)
PROGRESS_KEY = "lore_reindex"
SWAP_KEY = "lore_reindex_swap"


def model_slug(model: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")[:48] or "model"


async def _metadata(client: AsyncQdrantClient, collection: str) -> dict[str, Any]:
    return dict((await client.get_collection(collection)).config.metadata or {})


async def aliased_collection(client: AsyncQdrantClient, name: str) -> str | None:
    """The collection behind the alias ``name``, or None when ``name`` is no alias."""
    for alias in (await client.get_aliases()).aliases:
        if alias.alias_name == name:
            return alias.collection_name
    return None


async def _set_alias(client: AsyncQdrantClient, name: str, collection: str, *, replace: bool) -> None:
    actions: list[Any] = []
    if replace:  # in the same call: the server moves the alias atomically
        actions.append(models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=name)))
    actions.append(
        models.CreateAliasOperation(create_alias=models.CreateAlias(collection_name=collection, alias_name=name))
    )
    await client.update_collection_aliases(change_aliases_operations=actions)


async def finish_alias_swap(client: AsyncQdrantClient, name: str) -> bool:
    """At start-up: if a crash left no ``name`` between deleting the old collection and creating the
    alias, point the alias at the rebuilt collection marked for the swap. True when it did."""
    if await client.collection_exists(name):
        return False
    for collection in (await client.get_collections()).collections:
        if collection.name.startswith(f"{name}__") and (await _metadata(client, collection.name)).get(SWAP_KEY):
            await _set_alias(client, name, collection.name, replace=False)
            await client.update_collection(collection.name, metadata={SWAP_KEY: False, PROGRESS_KEY: None})
            return True
    return False


class MetadataProgress:
    """A rebuild's progress in its new collection's metadata."""

    def __init__(self, client: AsyncQdrantClient, collection: str) -> None:
        self.client = client
        self.collection = collection

    async def load(self) -> RebuildProgress:
        async with translated("reindex progress"):
            return progress_from_dict((await _metadata(self.client, self.collection)).get(PROGRESS_KEY))

    async def save(self, progress: RebuildProgress) -> None:
        async with translated("reindex progress"):
            await self.client.update_collection(self.collection, metadata={PROGRESS_KEY: progress_as_dict(progress)})


class ClientVectorStores:
    """``await ClientVectorStores.open(client, embedding_model=..., dimension=...)``; ``items`` and
    ``episodes`` are the guarded live stores; ``close()`` closes the client when it owns it."""

    def __init__(
        self,
        client: AsyncQdrantClient,
        embedding_model: str,
        dimension: int,
        items: Any,
        episodes: Any,
        state: VectorState,
        *,
        owns_client: bool,
    ) -> None:
        self.client = client
        self.model = embedding_model
        self.dimension = dimension
        self.state = state
        self.items = GuardedMemoryIndex(items, state)
        self.episodes = GuardedEpisodeIndex(episodes, state)
        self._owns_client = owns_client
        self._targets: tuple[Any, Any] | None = None

    @classmethod
    async def open(
        cls, client: AsyncQdrantClient, *, embedding_model: str, dimension: int, owns_client: bool = False
    ) -> ClientVectorStores:
        state = VectorState()
        try:
            async with translated("collection set-up"):
                for store_class in (QdrantClientMemoryIndex, QdrantClientEpisodeIndex):
                    if await finish_alias_swap(client, store_class.default_collection):
                        log.warning("completed a reindex swap that a crash had interrupted")
            model = {"embedding_model": embedding_model, "dimension": dimension}
            items = await open_live(QdrantClientMemoryIndex, client, state, **model)
            episodes = await open_live(QdrantClientEpisodeIndex, client, state, **model)
        except BaseException:
            if owns_client:
                await client.close()
            raise
        return cls(client, embedding_model, dimension, items, episodes, state, owns_client=owns_client)

    async def rebuilds(self) -> tuple[CollectionRebuild, CollectionRebuild]:
        if self._targets is None:
            self._targets = (
                await self._open_target(QdrantClientMemoryIndex),
                await self._open_target(QdrantClientEpisodeIndex),
            )
        items, episodes = self._targets
        return (
            CollectionRebuild("items", self.items.store, items, MetadataProgress(self.client, items.collection)),
            CollectionRebuild(
                "episodes", self.episodes.store, episodes, MetadataProgress(self.client, episodes.collection)
            ),
        )

    async def _open_target(self, store_class: Any) -> Any:
        """The new collection: resumed when an interrupted run left one of this model with its
        progress, else (re)created empty."""
        name = store_class.default_collection
        live = await aliased_collection(self.client, name) or name
        target = f"{name}__{model_slug(self.model)}"
        if target == live:
            target += "__2"
        model = {"embedding_model": self.model, "dimension": self.dimension, "collection": target}
        async with translated("reindex set-up"):
            if await self.client.collection_exists(target):
                try:
                    resumable = (await _metadata(self.client, target)).get(PROGRESS_KEY) is not None
                    if resumable:
                        return await store_class.open(self.client, **model)
                except FailedPrecondition as error:
                    if error.reason not in STALE_REASONS:
                        raise
                await self.client.delete_collection(target)  # another model's, or an old live one: start over
            return await store_class.open(self.client, **model)

    async def swap(self) -> None:
        assert self._targets is not None, "swap() follows rebuilds()"
        targets, self._targets = self._targets, None
        async with translated("reindex swap"):
            for target in targets:
                await self._swap_one(type(target).default_collection, target.collection)
        model = {"embedding_model": self.model, "dimension": self.dimension}
        self.items.store = await QdrantClientMemoryIndex.open(self.client, **model)
        self.episodes.store = await QdrantClientEpisodeIndex.open(self.client, **model)
        self.state.stale.clear()

    async def _swap_one(self, name: str, target: str) -> None:
        old = await aliased_collection(self.client, name)
        if old is not None:
            await _set_alias(self.client, name, target, replace=True)
            await self.client.delete_collection(old)
        else:
            await self.client.update_collection(target, metadata={SWAP_KEY: True})
            await self.client.delete_collection(name)
            await _set_alias(self.client, name, target, replace=False)
        # No progress left: were this collection ever orphaned, a later rebuild would not resume it.
        await self.client.update_collection(target, metadata={SWAP_KEY: False, PROGRESS_KEY: None})

    async def compact(self) -> list[PurgedStore]:
        """A purge cannot rewrite a server's files: its vacuum optimiser drops deleted points from a
        segment once enough of it is deleted, and its write-ahead log keeps them until it rolls over
        (docs/operations.md, "Erasure and purge", gives the bounds)."""
        detail = "a Qdrant server rewrites its own segments and write-ahead log (docs/operations.md)"
        return [PurgedStore(f"qdrant.{name}", "skipped", detail=detail) for name in ("items", "episodes")]

    async def close(self) -> None:
        if self._owns_client:
            await self.client.close()
