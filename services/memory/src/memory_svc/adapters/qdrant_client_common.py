"""What both qdrant-client adapters share: payload index schemas, local-mode detection and the
translation of Qdrant failures into ``DependencyUnavailable``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from lore_runtime.errors import DependencyUnavailable
from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory_svc.adapters.memory_payload import PayloadIndex


def payload_schema(index: PayloadIndex) -> models.PayloadSchemaType | models.KeywordIndexParams:
    if index.kind == "tenant":
        return models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    return {
        "keyword": models.PayloadSchemaType.KEYWORD,
        "datetime": models.PayloadSchemaType.DATETIME,
        "float": models.PayloadSchemaType.FLOAT,
        "integer": models.PayloadSchemaType.INTEGER,
    }[index.kind]


def is_local(client: AsyncQdrantClient) -> bool:
    """True for qdrant-client's in-process emulation (``:memory:`` or ``path=``)."""
    try:
        from qdrant_client.local.async_qdrant_local import AsyncQdrantLocal
    except ImportError:  # pragma: no cover - layout of a future qdrant-client
        return False
    return isinstance(getattr(client, "_client", None), AsyncQdrantLocal)


@contextlib.asynccontextmanager
async def translated(what: str) -> AsyncIterator[None]:
    """Qdrant being down or failing is DependencyUnavailable; a 4xx stays a bug and is raised as is."""
    try:
        yield
    except ResponseHandlingException as error:
        raise DependencyUnavailable(
            f"qdrant unreachable during {what}: {error}", metadata={"dependency": "qdrant"}
        ) from error
    except UnexpectedResponse as error:
        if error.status_code is not None and (error.status_code >= 500 or error.status_code == 429):
            raise DependencyUnavailable(
                f"qdrant failed during {what}: {error.status_code}", metadata={"dependency": "qdrant"}
            ) from error
        raise
