"""Size limits on what a client may send (documented in the protos and the README)."""

MAX_CONTENT_CHARS = 16_000
MAX_BATCH = 100
MAX_K = 100
DEFAULT_K = 10
MAX_QUERY_CHARS = 4_000
MAX_METADATA_ENTRIES = 32
MAX_METADATA_KEY_CHARS = 64
MAX_METADATA_VALUE_CHARS = 1_024
MAX_ENTITIES = 64
MAX_ENTITY_CHARS = 200  # one entity's name
MAX_IDEMPOTENCY_KEY_CHARS = 256
MAX_SCOPE_ID_CHARS = 128
MAX_SPEAKER_CHARS = 100  # a message's speaker (provenance.speaker), as the agent's Turn.speaker
MAX_ACCESS_IDS = 500
# Sessions whose working memory one ForgetSubject clears (a subject's whole history).
MAX_FORGET_SESSION_IDS = 10_000
# Below this cosine, MiniLM pairs are often related but distinct statements: never fold them.
MIN_CONSOLIDATION_THRESHOLD = 0.8
