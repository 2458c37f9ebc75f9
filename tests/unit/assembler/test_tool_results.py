from __future__ import annotations

from assembler_svc.domain.tool_results import MAX_VALUE_CHARS, ToolResult, compact_value, lookup, render_tool_result

FIELDS: dict[str, object] = {
    "order": {"id": "A-17", "total": 42.5, "paid": True, "note": None},
    "items": [{"name": "Tea\n  box", "qty": 2}, {"name": "Mug", "qty": 1}],
    "tags": ["gift", "urgent"],
    "long": "x" * 500,
}


def test_one_line_with_the_salient_fields_only() -> None:
    result = ToolResult(
        tool_name="orders.lookup",
        intent="find the order",
        summary="Order A-17 found",
        fields=FIELDS,
        salient_fields=["order.total", "order.paid", "items.0.name", "items.1", "tags", "missing.path", "items.9"],
    )
    assert render_tool_result(result) == (
        "orders.lookup: Order A-17 found "
        "(order.total: 42.5; order.paid: true; items.0.name: Tea box; items.1: {name=Mug, qty=1}; tags: [gift, urgent])"
    )


def test_without_a_summary_the_intent_is_used_and_without_fields_no_brackets() -> None:
    assert render_tool_result(ToolResult("weather", intent="check the weather in Porto")) == (
        "weather: check the weather in Porto"
    )
    assert render_tool_result(ToolResult("ping")) == "ping"


def test_never_a_raw_dump_and_values_are_capped() -> None:
    line = render_tool_result(ToolResult("t", summary="s", fields=FIELDS, salient_fields=["long", "order"]))
    assert "items" not in line
    assert "tags" not in line
    assert '"' not in line
    assert "order: {id=A-17, total=42.5, paid=true, note=null}" in line
    assert "long: " + "x" * (MAX_VALUE_CHARS - 1) + "…" in line
    capped = compact_value(list(range(1000)))
    assert len(capped) <= MAX_VALUE_CHARS
    assert capped.startswith("[0, 1, 2")
    assert capped.endswith("…")


def test_lookup_walks_mappings_and_list_indexes() -> None:
    assert lookup(FIELDS, "items.1.qty") == 1
    assert lookup(FIELDS, "order.note") is None
    assert render_tool_result(ToolResult("t", summary="s", fields=FIELDS, salient_fields=["order.note"])) == (
        "t: s (order.note: null)"
    )
    for path in ["items.x", "items.-9", "tags.0.name", "order.id.more", ""]:
        assert render_tool_result(ToolResult("t", summary="s", fields=FIELDS, salient_fields=[path])) == "t: s"


def test_nested_values_are_shortened() -> None:
    assert compact_value({"a": {"b": {"c": 1}}}) == "{a={b=…}}"
    assert compact_value(False) == "false"
    assert compact_value(3) == "3"
    assert compact_value(2.0) == "2"  # protobuf Struct numbers are doubles
    assert compact_value(2.5) == "2.5"
    assert compact_value(1e20) == "1e+20"
