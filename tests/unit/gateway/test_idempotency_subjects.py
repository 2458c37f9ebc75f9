"""Whom an idempotency record names (gateway_svc/domain/idempotency_subjects.py)."""

import json

from gateway_svc.domain.idempotency_subjects import MAX_SUBJECTS, subject_ids, subjects_of


def test_scope_ids_anywhere_in_the_request_or_response_and_the_session_of_the_path_are_named():
    request = json.dumps({"memories": [{"scope": {"userId": "u-1", "teamId": "t-1"}}, {"scope": {"user_id": "u-2"}}]})
    response = json.dumps({"session": {"id": "s-9", "scope": {"userId": "u-3", "agentId": "aria"}}})

    named = subjects_of("/v1/sessions/s-9/turns", request.encode(), response.encode(), user_id="u-pinned")

    assert named == sorted(
        ["session:s-9", "team:t-1", "user:u-1", "user:u-2", "user:u-3", "agent:aria", "user:u-pinned"]
    )
    assert subjects_of("/v1/sessions/s-9:end") == ["session:s-9"]
    assert subjects_of("/v1/sessions") == []


def test_a_body_that_is_no_json_or_nested_beyond_the_parser_names_nobody_and_never_raises():
    deep = b"[" * 200_000 + b"]" * 200_000
    wide = json.dumps([{"userId": f"u-{n}"} for n in range(2 * MAX_SUBJECTS)]).encode()

    assert subjects_of("/v1/memories", b"not json", deep, b"") == []
    assert len(subjects_of("/v1/memories", wide)) == MAX_SUBJECTS


def test_an_erasure_subject_names_each_of_its_ids():
    assert subject_ids("u-1", "", "t-1") == ["user:u-1", "team:t-1"]
    assert subject_ids("", "", "") == []
