"""How ``lore turns import`` cuts a file into calls: at most ``BATCH`` turns and about
``BATCH_BYTES`` of JSON each, never cutting a user's turn from the assistant's turn before it
(the server reads that pair together to redact a bare answer to a question for a password); and
how a line without a time is keyed, so sending it again writes nothing twice."""

from __future__ import annotations

import json

from lore_cli import turns_import
from lore_cli.turns_import import Line, batches, read_turns


def _line(number: int, role: str, content: str = "words") -> Line:
    return Line(number, {"role": f"TURN_ROLE_{role.upper()}", "content": content, "createdAt": "2023-01-01T00:00:00Z"})


def _numbers(cut: list[list[Line]]) -> list[list[int]]:
    return [[line.number for line in batch] for batch in cut]


def test_batches_hold_at_most_batch_turns_and_keep_every_line_once(monkeypatch):
    monkeypatch.setattr(turns_import, "BATCH", 3)
    lines = [_line(number, "user") for number in range(1, 8)]

    assert _numbers(batches(lines)) == [[1, 2, 3], [4, 5, 6], [7]]


def test_a_user_turn_stays_with_the_assistant_turn_before_it(monkeypatch):
    monkeypatch.setattr(turns_import, "BATCH", 3)
    roles = ["user", "user", "assistant", "user", "assistant", "assistant", "user"]
    lines = [_line(number, role) for number, role in enumerate(roles, start=1)]

    # A cut after line 3 (assistant) would part it from line 4 (user): the batch ends at line 2.
    assert _numbers(batches(lines)) == [[1, 2], [3, 4, 5], [6, 7]]


def test_a_batch_stays_under_the_byte_bound_but_always_holds_one_turn(monkeypatch):
    monkeypatch.setattr(turns_import, "BATCH_BYTES", 400)
    lines = [_line(1, "user", "a" * 100), _line(2, "user", "b" * 100), _line(3, "user", "c" * 500), _line(4, "user")]

    cut = batches(lines)

    assert _numbers(cut) == [[1, 2], [3], [4]]
    assert all(len(json.dumps([line.turn for line in batch])) <= 400 for batch in cut if len(batch) > 1)


def test_only_a_line_without_a_time_or_key_is_keyed_and_by_its_number_and_words(tmp_path):
    path = tmp_path / "turns.jsonl"
    rows = [
        {"role": "user", "content": "ok"},
        {"role": "user", "content": "ok"},
        {"role": "user", "content": "ok", "createdAt": "2023-01-01T00:00:00Z"},
        {"role": "user", "content": "ok", "idempotencyKey": "mine"},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")

    first, second, timed, keyed = [line.turn for line in read_turns(path)]

    assert first["idempotencyKey"].startswith("line:1:") and second["idempotencyKey"].startswith("line:2:")
    assert "idempotencyKey" not in timed and keyed["idempotencyKey"] == "mine"
    assert read_turns(path)[0].turn == first, "the same file gives the same keys"
