"""The typed Python client of Lore's REST API, async and sync, with the same methods and errors.

    from lore_client import LoreClient, NewMemory, SyncLoreClient

    async with LoreClient("http://127.0.0.1:8080", api_key=key) as lore:
        await lore.remember(NewMemory(content="Noor sang with the choir.", memory_type="message"),
                            scope="u-noor")
        for hit in await lore.search("When did Noor first sing with the choir?", scope="u-noor"):
            print(hit.score, hit.memory.content)

    with SyncLoreClient("http://127.0.0.1:8080", api_key=key) as lore:  # no event loop needed
        hits = lore.search("When did Noor first sing with the choir?", scope="u-noor")
        memories = list(lore.iter_memories("u-noor"))  # iter_* are generators here

Every endpoint is written once (``lore_client.operations``) and runs on either client, so the two
cannot drift. Depends on httpx only (not the generated protos): the wire format is the proto3 JSON
of ARCHITECTURE.md §6, written and read here.
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
    ForgetResult,
    ForgottenItem,
    Hypothesis,
    ImportResult,
    Job,
    JobKindStats,
    Memory,
    Observation,
    ObservationHit,
    ObserveResult,
    OpenThread,
    Page,
    Prime,
    PrimedItem,
    ProfileLine,
    Provenance,
    RecallResult,
    Scope,
    Session,
    Status,
    Turn,
    TurnContext,
    TurnResult,
    Unknown,
    UserProfile,
)
from lore_client.sync_client import SyncLoreClient

__all__ = [
    "AssembledContext",
    "Engagement",
    "Episode",
    "EpisodeThread",
    "ErasureJob",
    "Evidence",
    "Finding",
    "ForgetResult",
    "ForgottenItem",
    "Hypothesis",
    "ImportResult",
    "Job",
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
    "ProfileLine",
    "Provenance",
    "RecallResult",
    "Scope",
    "Session",
    "Status",
    "SyncLoreClient",
    "Turn",
    "TurnContext",
    "TurnResult",
    "Unknown",
    "UserProfile",
    "enum_name",
]
