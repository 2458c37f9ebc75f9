"""Size limits on the engagement state a client may write (docs/engagement.md, "Limits").

They bound GetEngagement too: at most 50 active + 20 closed hypotheses, each with at most 50
evidence lines and 10 revisions of bounded text, stays well under the 8 MiB gRPC message cap.
"""

MAX_STATEMENT_CHARS = 500  # hypothesis, evidence line and finding statements
MAX_SOURCE_CHARS = 200
MAX_TEXT_CHARS = 1_000  # question, why it matters, reason, note, resolution
MAX_REQUEST_ID_CHARS = 128
MAX_EVIDENCE_PER_HYPOTHESIS = 50
MAX_REVISIONS_PER_HYPOTHESIS = 10
MAX_ACTIVE_HYPOTHESES = 50
MAX_OPEN_UNKNOWNS = 100
MIN_WEIGHT_EXCLUSIVE = 0.0
MAX_WEIGHT = 10.0
DEFAULT_WEIGHT = 1.0

# What GetEngagement returns beyond the active hypotheses and open unknowns, newest first.
CLOSED_HYPOTHESES_SHOWN = 20
RESOLVED_UNKNOWNS_SHOWN = 20
FINDINGS_SHOWN = 50
