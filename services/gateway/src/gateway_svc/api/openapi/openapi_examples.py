"""Example responses for the OpenAPI document, one per response message, in proto3 JSON.

They are parsed into their messages when the document is built (a field the message does not
have fails at start-up, not in a reader's client), and printed with every field, as the
gateway answers. One conversation runs through them: Noor's choir, in org ``dev``.
"""

from __future__ import annotations

from typing import Any

SCOPE = {"userId": "u-1", "agentId": "agent-1"}
MEMORY_ID = "3f6c2a4e-8b1d-5e7f-9a0c-1d2e3f4a5b6c"
SESSION_ID = "7a1b2c3d-4e5f-5a6b-8c7d-9e0f1a2b3c4d"
TURN_ID = "c0ffee00-1234-5678-9abc-def012345678"
OBSERVATION_ID = "5e8d7c6b-5a49-4837-a625-1403f2e1d0c9"
HYPOTHESIS_ID = "0d9c8b7a-6f5e-4d3c-b2a1-0f9e8d7c6b5a"
UNKNOWN_ID = "a1b2c3d4-e5f6-4789-8abc-def012345679"
EPISODE_ID = "e1d2c3b4-a596-5877-8695-a4b3c2d1e0f9"

MEMORY = {
    "id": MEMORY_ID,
    "content": "Noor sang with the community choir for the first time yesterday.",
    "memoryType": "MEMORY_TYPE_FACT",
    "scope": SCOPE,
    "importance": 0.7,
    "status": "MEMORY_STATUS_ACTIVE",
    "metadata": {"channel": "chat"},
    "provenance": {"sessionId": SESSION_ID, "turnIds": [TURN_ID], "source": "PROVENANCE_SOURCE_REFLECTION"},
    "entities": ["Noor", "community choir"],
    "createdAt": "2026-11-20T09:14:03Z",
    "validAt": "2026-11-19T18:00:00Z",
    "currentSalience": 0.82,
    "accessCount": 3,
    "lastAccessedAt": "2026-11-22T08:01:12Z",
    "updatedAt": "2026-11-22T08:01:12Z",
    "halfLifeDays": 30.0,
}
SESSION = {
    "id": SESSION_ID,
    "scope": SCOPE,
    "status": "SESSION_STATUS_ACTIVE",
    "startedAt": "2026-11-22T08:00:00Z",
    "lastActiveAt": "2026-11-22T08:03:41Z",
    "turnCount": 4,
    "metadata": {"channel": "web"},
    "reflectedTurns": 3,
}
TURN = {
    "id": TURN_ID,
    "sessionId": SESSION_ID,
    "sequence": 4,
    "role": "TURN_ROLE_USER",
    "content": "I sang with the choir yesterday, it really lifted me.",
    "createdAt": "2026-11-22T08:03:41Z",
    "idempotencyKey": "turn-4",
}
EVIDENCE = {
    "id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
    "observationId": OBSERVATION_ID,
    "stance": "EVIDENCE_STANCE_SUPPORT",
    "weight": 1.0,
    "sourceType": "SOURCE_TYPE_MESSAGE",
    "sourceId": TURN_ID,
    "excerpt": "I sang with the choir yesterday",
    "observedAt": "2026-11-22T08:03:41Z",
    "createdAt": "2026-11-22T08:03:42Z",
}
OBSERVATION = {
    "id": OBSERVATION_ID,
    "agentId": "agent-1",
    "kind": "OBSERVATION_KIND_RELATIONSHIP_FACT",
    "subjectType": "SUBJECT_TYPE_ENTITY",
    "subjectId": "caroline",
    "slot": "support_network",
    "canonicalKey": "relationship_fact:entity:caroline:support_network",
    "summary": "Noor sings with a community choir.",
    "tags": ["wellbeing"],
    "confidence": 0.74,
    "confidenceComponents": {
        "sourceCount": 1,
        "sourceDiversity": 1.0,
        "supportWeight": 1.0,
        "recencyWeight": 1.0,
    },
    "freshness": 1.0,
    "lastSupportedAt": "2026-11-22T08:03:41Z",
    "revalidationDueAt": "2027-02-20T08:03:41Z",
    "status": "OBSERVATION_STATUS_ACTIVE",
    "createdAt": "2026-11-22T08:03:42Z",
    "updatedAt": "2026-11-22T08:03:42Z",
    "evidence": [EVIDENCE],
}
HYPOTHESIS = {
    "id": HYPOTHESIS_ID,
    "statement": "Churn is driven by onboarding friction.",
    "confidence": 0.62,
    "status": "HYPOTHESIS_STATUS_ACTIVE",
    "evidence": [
        {
            "id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
            "statement": "Half of churned accounts never finished setup.",
            "stance": "EVIDENCE_STANCE_SUPPORT",
            "weight": 1.0,
            "source": "cohort analysis, week 1",
            "observedAt": "2026-11-16T10:00:00Z",
            "recordedAt": "2026-11-16T10:05:00Z",
        }
    ],
    "createdAt": "2026-11-16T10:05:00Z",
    "updatedAt": "2026-11-16T10:05:00Z",
}
FINDING = {
    "id": "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0ff",
    "statement": "Churn is driven by onboarding friction.",
    "source": "hypothesis 0d9c8b7a, promoted in week 2",
    "hypothesisId": HYPOTHESIS_ID,
    "recordedAt": "2026-11-23T09:00:00Z",
}
UNKNOWN = {
    "id": UNKNOWN_ID,
    "question": "Which plan churns most?",
    "whyItMatters": "It decides where to act first.",
    "status": "UNKNOWN_STATUS_OPEN",
    "createdAt": "2026-11-16T10:06:00Z",
}
EPISODE = {
    "id": EPISODE_ID,
    "conversationId": SESSION_ID,
    "scope": SCOPE,
    "summary": "Noor talked about the choir and asked about singing lessons.",
    "keyTopics": ["choir", "singing lessons"],
    "entitiesDiscussed": ["Noor"],
    "userState": {"mood": "hopeful", "confidence": "medium", "focus": "career change"},
    "outcomes": [{"type": "decision", "content": "She will look at singing lessons."}],
    "openThreads": [
        {"topic": "which singing teacher", "status": "THREAD_STATUS_OPEN", "context": "asked, not answered"}
    ],
    "decisions": ["Look at singing lessons"],
    "actionItems": [{"owner": "user", "task": "Shortlist two teachers", "deadline": "Friday"}],
    "nextSessionQuestions": ["Did you find a teacher you like?"],
    "messageCount": 8,
    "startedAt": "2026-11-22T08:00:00Z",
    "endedAt": "2026-11-22T08:31:00Z",
    "importance": 0.6,
    "currentSalience": 0.6,
    "createdAt": "2026-11-22T08:31:02Z",
}
MANIFEST_KEPT = {
    "source": "CANDIDATE_SOURCE_MEMORY",
    "id": MEMORY_ID,
    "section": "SECTION_KIND_MEMORIES",
    "score": {"similarity": 0.81, "recency": 0.9, "importance": 0.7, "total": 0.79},
    "tokens": 14,
    "outcome": "MANIFEST_OUTCOME_KEPT",
    "reason": "kept: score 0.79 within the memories budget",
}
MANIFEST_DROPPED = {
    "source": "CANDIDATE_SOURCE_MEMORY",
    "id": "4a5b6c7d-8e9f-5a0b-9c1d-2e3f4a5b6c7d",
    "section": "SECTION_KIND_MEMORIES",
    "score": {"similarity": 0.8, "recency": 0.4, "importance": 0.5, "total": 0.61},
    "tokens": 15,
    "outcome": "MANIFEST_OUTCOME_DUPLICATE",
    "duplicateOf": MEMORY_ID,
    "reason": "near-duplicate of a kept memory",
}
CONTEXT = {
    "sections": [
        {
            "kind": "SECTION_KIND_MEMORIES",
            "title": "What you remember",
            "items": [
                {
                    "source": "CANDIDATE_SOURCE_MEMORY",
                    "id": MEMORY_ID,
                    "text": "Noor sang with the community choir (2026-11-19).",
                    "tokens": 14,
                }
            ],
            "text": "## What you remember\n- Noor sang with the community choir (2026-11-19).",
            "tokens": 20,
            "budgetTokens": 600,
        }
    ],
    "manifest": [MANIFEST_KEPT, MANIFEST_DROPPED],
    "text": "## What you remember\n- Noor sang with the community choir (2026-11-19).",
    "totalTokens": 20,
    "budgetTokens": 2000,
    "fingerprint": "9c1f0e2d",
}
PRIMED_ITEM = {
    "source": "CANDIDATE_SOURCE_OPEN_THREAD",
    "id": EPISODE_ID,
    "text": "Open thread: which singing teacher",
    "score": 0.74,
    "occurredAt": "2026-11-22T08:31:00Z",
}

# Keyed by the response message's full name.
PRIME = {
    "recentContext": [],
    "openThreads": [PRIMED_ITEM],
    "salientFacts": [
        {
            "source": "CANDIDATE_SOURCE_MEMORY",
            "id": MEMORY_ID,
            "text": "Noor sang with the community choir.",
            "score": 0.82,
            "occurredAt": "2026-11-19T18:00:00Z",
        }
    ],
    "entities": ["Noor"],
    "formattedContext": "## Open threads\n- which singing teacher\n## Facts\n- Noor sang with the choir.",
    "manifest": [MANIFEST_KEPT],
}

USER_PROFILE = {
    "profile": {
        "lines": [
            {"text": "Goes by Noor.", "kind": "caller", "confidence": 1.0},
            {
                "text": "The user lives in Porto",
                "kind": "belief",
                "sourceId": OBSERVATION_ID,
                "confidence": 0.82,
                "updatedAt": "2026-11-20T09:30:00Z",
            },
            {
                "text": "The user is allergic to peanuts.",
                "kind": "fact",
                "sourceId": MEMORY_ID,
                "confidence": 0.8,
                "updatedAt": "2026-11-02T18:04:00Z",
            },
        ],
        "text": "## User profile\n- Goes by Noor.\n- The user lives in Porto\n- The user is allergic to peanuts.",
        "tokens": 27,
    }
}

RESPONSES: dict[str, dict[str, Any]] = {
    "lore.memory.v1.RememberResponse": {"memories": [MEMORY]},
    "lore.memory.v1.RecallResponse": {
        "results": [
            {
                "memory": MEMORY,
                "score": 0.79,
                "similarity": 0.81,
                "lexicalScore": 0.55,
                "salience": 0.82,
                "importance": 0.7,
                "recency": 0.9,
            }
        ],
        "embeddingModel": "all-MiniLM-L6-v2-int8",
    },
    "lore.memory.v1.ListMemoriesResponse": {"memories": [MEMORY], "nextPageToken": "eyJvIjoyMH0"},
    "lore.memory.v1.GetMemoryResponse": {"memory": MEMORY},
    "lore.memory.v1.UpdateMemoryResponse": {"memory": {**MEMORY, "importance": 0.9, "metadata": {"pinned": "yes"}}},
    "lore.memory.v1.ForgetMemoryResponse": {},
    "lore.memory.v1.ListEpisodesResponse": {"episodes": [EPISODE], "nextPageToken": ""},
    "lore.memory.v1.ListOpenThreadsResponse": {
        "threads": [
            {
                "episodeId": EPISODE_ID,
                "conversationId": SESSION_ID,
                "thread": EPISODE["openThreads"][0],
                "endedAt": "2026-11-22T08:31:00Z",
                "index": 0,
            }
        ]
    },
    "lore.memory.v1.ResolveThreadResponse": {
        "thread": {
            "episodeId": EPISODE_ID,
            "conversationId": SESSION_ID,
            "thread": {
                **EPISODE["openThreads"][0],
                "status": "THREAD_STATUS_RESOLVED",
                "resolution": "Answered: the visa came through on Monday.",
            },
            "endedAt": "2026-11-22T08:31:00Z",
            "index": 0,
        }
    },
    "lore.memory.v1.RunDecayResponse": {"updated": 1284, "computedAt": "2026-11-23T03:00:00Z"},
    "lore.memory.v1.RunConsolidationResponse": {"examined": 412, "groups": 3, "consolidated": 7, "dryRun": True},
    "lore.memory.v1.ReindexResponse": {
        "phase": "done",
        "done": 10000,
        "total": 10000,
        "model": "all-MiniLM-L6-v2-int8",
        "dimension": 384,
    },
    "lore.observations.v1.ObserveResponse": {"observation": OBSERVATION, "outcome": "OBSERVE_OUTCOME_CREATED"},
    "lore.observations.v1.GetObservationResponse": {"observation": OBSERVATION},
    "lore.observations.v1.QueryObservationsResponse": {"observations": [OBSERVATION], "nextPageToken": ""},
    "lore.observations.v1.SearchObservationsResponse": {
        "results": [{"observation": OBSERVATION, "score": 0.71, "similarity": 0.68, "lexicalScore": 0.4}]
    },
    "lore.observations.v1.ConfirmObservationResponse": {
        "observation": {**OBSERVATION, "confidence": 0.86, "confidenceComponents": {"operatorConfirmedBoost": 0.15}}
    },
    "lore.observations.v1.ContradictObservationResponse": {
        "observation": {**OBSERVATION, "status": "OBSERVATION_STATUS_SUPERSEDED"},
        "outcome": "OBSERVE_OUTCOME_SUPERSEDED",
    },
    "lore.observations.v1.GetObservationHistoryResponse": {
        "observations": [
            {
                **OBSERVATION,
                "id": "6f9e8d7c-6b5a-4948-b736-2514f3e2d1ca",
                "summary": "Noor no longer sings with the choir.",
                "supersedesObservationId": OBSERVATION_ID,
                "evidence": [],
            },
            {**OBSERVATION, "status": "OBSERVATION_STATUS_SUPERSEDED"},
        ]
    },
    "lore.observations.v1.RunRevalidationResponse": {"checked": 120, "markedStale": 4, "markedInvalidated": 1},
    "lore.observations.v1.GetEngagementResponse": {
        "weekNumber": 2,
        "hypotheses": [HYPOTHESIS],
        "unknowns": [UNKNOWN],
        "findings": [FINDING],
    },
    "lore.observations.v1.FormHypothesisResponse": {"hypothesis": HYPOTHESIS},
    "lore.observations.v1.AddHypothesisEvidenceResponse": {"hypothesis": HYPOTHESIS},
    "lore.observations.v1.ReviseHypothesisResponse": {
        "hypothesis": {
            **HYPOTHESIS,
            "confidence": 0.85,
            "revisions": [
                {
                    "previousStatement": HYPOTHESIS["statement"],
                    "statement": HYPOTHESIS["statement"],
                    "previousConfidence": 0.62,
                    "confidence": 0.85,
                    "reason": "The contradicting cohort had no onboarding emails.",
                    "revisedAt": "2026-11-20T15:00:00Z",
                }
            ],
        }
    },
    "lore.observations.v1.PromoteHypothesisResponse": {
        "hypothesis": {**HYPOTHESIS, "status": "HYPOTHESIS_STATUS_PROMOTED", "findingId": FINDING["id"]},
        "finding": FINDING,
    },
    "lore.observations.v1.ArchiveHypothesisResponse": {
        "hypothesis": {**HYPOTHESIS, "status": "HYPOTHESIS_STATUS_ARCHIVED", "archiveNote": "Superseded."}
    },
    "lore.observations.v1.AddUnknownResponse": {"unknown": UNKNOWN},
    "lore.observations.v1.ResolveUnknownResponse": {
        "unknown": {
            **UNKNOWN,
            "status": "UNKNOWN_STATUS_RESOLVED",
            "resolution": "The monthly starter plan.",
            "resolvedAt": "2026-11-23T09:30:00Z",
        }
    },
    "lore.observations.v1.AdvanceWeekResponse": {"weekNumber": 2},
    "lore.agent.v1.StartSessionResponse": {
        "session": {**SESSION, "turnCount": 0, "reflectedTurns": 0},
        "prime": PRIME,
        "primeUnavailable": False,
    },
    "lore.agent.v1.GetSessionResponse": {"session": SESSION},
    "lore.agent.v1.ListSessionsResponse": {"sessions": [SESSION], "nextPageToken": ""},
    "lore.agent.v1.EndSessionResponse": {
        "session": {
            **SESSION,
            "status": "SESSION_STATUS_ENDED",
            "endReason": "SESSION_END_REASON_REQUESTED",
            "endedAt": "2026-11-22T08:31:00Z",
        }
    },
    "lore.agent.v1.ListTurnsResponse": {"turns": [TURN], "nextPageToken": ""},
    "lore.agent.v1.ProcessTurnResponse": {"turn": TURN, "context": CONTEXT},
    "lore.agent.v1.ImportTurnsResponse": {"imported": 198, "skipped": 2},
    "lore.agent.v1.ForgetAboutResponse": {
        "forgotten": [
            {"id": "0b6c2f0e-5d1c-5a43-9a57-7f1f3f0f2a11", "type": "fact", "text": "The user lives on Juniper Road."},
            {"id": "3f2a9c1d-8e7b-4c6a-9d5e-2b1a0f9e8d7c", "type": "belief", "text": "The user lives in Leeds."},
        ],
        "status": "FORGET_STATUS_FORGOTTEN",
    },
    "lore.agent.v1.ForgetSubjectResponse": {
        "job": {
            "id": "erase-u-1",
            "status": "ERASURE_STATUS_PENDING",
            "requestedAt": "2026-11-23T10:00:00Z",
        }
    },
    "lore.agent.v1.GetJobStatsResponse": {
        "kinds": [
            {"kind": "reflect", "queued": 3, "running": 1, "retrying": 0, "dead": 0, "oldestQueuedSeconds": 0.4},
            {"kind": "episode", "queued": 0, "running": 0, "retrying": 0, "dead": 1},
        ]
    },
    "lore.agent.v1.RetryJobsResponse": {"requeued": 3, "skipped": 1},
    "lore.agent.v1.GetTurnContextResponse": {
        "status": "TURN_CONTEXT_STATUS_AVAILABLE",
        "turn": TURN,
        "context": CONTEXT,
        "assembledAt": "2026-11-22T08:03:42Z",
        "expiresAt": "2026-11-29T08:03:42Z",
    },
    "lore.agent.v1.ListJobsResponse": {
        "jobs": [
            {
                "id": "4182",
                "kind": "reflect",
                "state": "retrying",
                "attempts": 2,
                "lastError": "memory service unavailable: connection refused",
                "lastErrorAt": "2026-11-22T08:03:47Z",
                "sessionId": SESSION_ID,
                "throughSequence": 4,
                "createdAt": "2026-11-22T08:03:42Z",
                "updatedAt": "2026-11-22T08:03:47Z",
                "nextAttemptAt": "2026-11-22T08:03:51Z",
            }
        ],
        "nextPageToken": "",
    },
    "lore.assembler.v1.AssembleContextResponse": {"context": CONTEXT},
    "lore.assembler.v1.PrimeResponse": PRIME,
    "lore.assembler.v1.GetUserProfileResponse": USER_PROFILE,
}

# Path parameters by name.
PATH_PARAMETERS: dict[str, str] = {
    "memory_id": MEMORY_ID,
    "session_id": SESSION_ID,
    "turn_id": TURN_ID,
    "observation_id": OBSERVATION_ID,
    "hypothesis_id": HYPOTHESIS_ID,
    "unknown_id": UNKNOWN_ID,
    "episode_id": EPISODE_ID,
    "thread_index": "0",
    "user_id": "u-1",
}
