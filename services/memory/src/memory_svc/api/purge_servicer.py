"""PurgeErased: erased content gone from the stores' files (usecases/purge.py)."""

from __future__ import annotations

from typing import Any

from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors

from memory_svc.usecases.purge import PurgeSchedule


class PurgeRpcs:
    _purges: PurgeSchedule | None

    async def PurgeErased(self, request: pb.PurgeErasedRequest, context: Any) -> pb.PurgeErasedResponse:
        # An operator job across every org (`lore erasure purge`) or the erase job's deferred request.
        if self._purges is None:
            raise errors.Unimplemented("this memory service was built without stores to purge")
        done = self._purges.request() if request.deferred else await self._purges.run_now()
        return pb.PurgeErasedResponse(
            stores=[
                pb.PurgedStore(store=part.store, outcome=part.outcome, kept=part.kept, detail=part.detail)
                for part in done
            ]
        )
