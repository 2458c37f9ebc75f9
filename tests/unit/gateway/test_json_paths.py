"""A service's proto field paths are answered in the REST client's JSON names."""

import pytest
from gateway_svc.api.json.json_paths import json_named, json_path


@pytest.mark.parametrize(
    ("proto", "json"),
    [
        ("page_token", "pageToken"),
        ("memories[0].idempotency_key", "memories[0].idempotencyKey"),
        ("options.section_budgets[12].tokens", "options.sectionBudgets[12].tokens"),
        ("metadata[my_key].value_text", "metadata[my_key].valueText"),  # a map key stays as written
        ("k", "k"),
        ("", ""),
    ],
)
def test_identifiers_are_renamed_and_brackets_kept(proto, json) -> None:
    assert json_path(proto) == json


def test_the_message_and_every_detail_name_the_field_in_json() -> None:
    details = [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "metadata": {"field": "page_token"}},
        {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field": "page_token"}]},
    ]
    message, renamed = json_named("invalid page_token: was issued for other filters", details)
    assert message == "invalid pageToken: was issued for other filters"
    assert renamed[0]["metadata"]["field"] == renamed[1]["fieldViolations"][0]["field"] == "pageToken"
    assert (
        json_named("memories[1].idempotency_key: reused", [{"metadata": {"field": "memories[1].idempotency_key"}}])[0]
        == "memories[1].idempotencyKey: reused"
    )
    assert json_named("no field here", [{"metadata": {"reason": "X"}}]) == (
        "no field here",
        [{"metadata": {"reason": "X"}}],
    )
