"""The typed Python client of Lore's REST API.

    from lore_client import LoreClient, NewMemory

    async with LoreClient("http://127.0.0.1:8080", api_key=key) as lore:
        await lore.remember(NewMemory(content="Noor sang with the choir.", memory_type="message"),
                            scope="u-noor")
        for hit in await lore.search("When did Noor first sing with the choir?", scope="u-noor"):
            print(hit.score, hit.memory.content)

Depends on httpx only (not the generated protos): the wire format is the proto3 JSON of
ARCHITECTURE.md §6, written and read here.
"""

from lore_client.client import LoreClient
from lore_client.errors import LoreApiError
from lore_client.inputs import NewEvidence, NewHypothesisEvidence, NewMemory, NewTurn, enum_name
from lore_client.models import (
    AssembledContext,
    Engagement,
    Episode,
    EpisodeThread,
    ErasureJob,
    Evidence,
    Finding,
    Hypothesis,
    ImportResult,
    JobKindStats,
    Memory,
    Observation,
    ObservationHit,
    ObserveResult,
    OpenThread,
    Page,
    Prime,
    PrimedItem,
    Provenance,
    RecallResult,
    Scope,
    Session,
    Status,
    Turn,
    TurnResult,
    Unknown,
)

__all__ = [
    "AssembledContext",
    "Engagement",
    "Episode",
    "EpisodeThread",
    "ErasureJob",
    "Evidence",
    "Finding",
    "Hypothesis",
    "ImportResult",
    "JobKindStats",
    "LoreApiError",
    "LoreClient",
    "Memory",
    "NewEvidence",
    "NewHypothesisEvidence",
    "NewMemory",
    "NewTurn",
    "Observation",
    "ObservationHit",
    "ObserveResult",
    "OpenThread",
    "Page",
    "Prime",
    "PrimedItem",
    "Provenance",
    "RecallResult",
    "Scope",
    "Session",
    "Status",
    "Turn",
    "TurnResult",
    "Unknown",
    "enum_name",
]
