"""The repository's prose speaks in the product's voice (tests/contracts/docs_voice.py has the rules).

README.md, docs/ and the code's comments and docstrings say what Lore does and why, never which
issue, milestone stop or commit produced it; their links stay inside the repository and land on a
heading that exists; the repository paths they name exist, so docs/architecture.md's walk through a
turn cannot drift from the tree. The rules run on a planted tree too, so a checker that silently
stopped seeing a reference would fail here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.contracts.docs_voice import (
    broken_links,
    documents,
    history_references,
    missing_paths,
    repository_files,
    slug,
)

ROOT = Path(__file__).resolve().parents[2]


def test_there_is_something_to_check():
    assert len(documents(ROOT)) > 20
    assert sum(1 for path in repository_files(ROOT) if path.suffix == ".py") > 300


def test_no_issue_stop_or_commit_reference_in_docs_or_code_comments():
    assert history_references(ROOT) == []


def test_every_relative_link_of_the_docs_lands_in_the_repository():
    assert broken_links(ROOT) == []


def test_every_repository_path_the_docs_name_exists():
    assert missing_paths(ROOT) == []


def test_every_decision_is_a_dated_record_with_a_status():
    """docs/decisions.md: each ``## `` record is followed by its status (accepted, or superseded by a
    link to the record that replaced it) and the date it was written down."""
    lines = (ROOT / "docs/decisions.md").read_text().splitlines()
    records = [number for number, line in enumerate(lines) if line.startswith("## ")]
    status = re.compile(
        r"\*\*Status:\*\* (accepted|superseded by \[[^\]]+\]\(#[\w-]+\)) · \*\*Date:\*\* \d{4}-\d{2}-\d{2}$"
    )

    assert len(records) > 100
    assert [lines[number] for number in records if not status.match(lines[number + 2])] == []


def test_the_architecture_walk_names_real_files():
    walk = (ROOT / "docs/architecture.md").read_text()
    assert "POST /v1/sessions/{session_id}/turns" in walk
    named = [line for line in walk.splitlines() if "services/" in line and "/src/" in line]
    assert len(named) >= 10


# --- the test of the test: a small repository that keeps every rule, then planted violations.

CLEAN = {
    "README.md": (
        "# Demo\n\nSee [the walk](docs/architecture.md#a-turn) and [Python](https://www.python.org/).\n"
        "The colour `#333` and `&#39;` are not issues; a clean stop takes 3.5 s; `docs/architecture.md`.\n"
        "```\ncurl localhost/#41\n```\n"
    ),
    "docs/architecture.md": "# Architecture\n\n## A turn\n\nIt enters services/demo/src/demo_svc/api/servicer.py.\n",
    "services/demo/src/demo_svc/api/servicer.py": (
        '"""The servicer."""\n\nCOLOUR = "#333"  # noqa: E501\nPLANTED = "6d7e9ed"\n'
    ),
    "services/demo/src/demo_svc/migrations/0001_first.sql": "-- applied once (#25), never edited\n",
    "libs/lore_proto/lore/demo_pb2.py": "# generated for issue 7\n",
    "tests/data/notes.md": "issue #5 in a data file\n",
    "clients/web/style.css": "a { color: #123; }\n",
}


def plant(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def test_a_clean_tree_passes_every_rule(tmp_path):
    root = plant(tmp_path, CLEAN)

    assert history_references(root) == []
    assert broken_links(root) == []
    assert missing_paths(root) == []


@pytest.mark.parametrize(
    ("where", "text", "seen"),
    [
        ("README.md", "Fixed in issue #23.\n", "issue #23"),
        ("docs/a.md", "Retrieval (issue 19, item 8).\n", "issue 19"),
        ("docs/a.md", "Measured at stop 34, quiet machine.\n", "stop 34"),
        ("docs/a.md", "The browser's routes (#26) read it.\n", "#26"),
        ("docs/a.md", "Before scopes (commit 6d7e9ed) it leaked.\n", "commit 6d7e9ed"),
        ("docs/a.md", "The commit before (bb98357) was slower.\n", "(bb98357)"),
        ("services/demo/src/demo_svc/api/x.py", "X = 1  # see issue #20\n", "issue #20"),
        ("services/demo/src/demo_svc/api/x.py", '"""Fewer hops (issue #24 item 4)."""\n', "issue #24"),
        ("bench/x.py", 'def f():\n    """As at stop 33."""\n    return 1\n', "stop 33"),
        ("scripts/run.sh", "#!/bin/sh\n# the retry of #19\nexit 0\n", "#19"),
        ("deploy/k8s/base/a.yaml", "a: 1  # issue 9\n", "issue 9"),
        ("clients/web/a.ts", "// closes #12\nexport const a = 1;\n", "#12"),
    ],
)
def test_a_planted_history_reference_is_found(tmp_path, where, text, seen):
    root = plant(tmp_path, {**CLEAN, where: text})

    found = history_references(root)

    assert len(found) == 1 and found[0].startswith(f"{where}:") and repr(seen) in found[0], found


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("See [the data](../shared/data/README.md).\n", "../shared/data/README.md"),
        ("Read from `../shared/data/locomo.json`.\n", "../shared/data/locomo.json"),
        ("See [the walk](docs/nothing.md).\n", "docs/nothing.md"),
        ("See [the walk](docs/architecture.md#no-such-heading).\n", "no such heading"),
        ("![a picture](docs/images/none.png)\n", "docs/images/none.png"),
    ],
)
def test_a_planted_link_out_of_the_repository_or_to_nothing_is_found(tmp_path, text, seen):
    root = plant(tmp_path, {**CLEAN, "README.md": CLEAN["README.md"] + text})

    found = broken_links(root)

    assert len(found) == 1 and found[0].startswith("README.md:") and seen in found[0], found


def test_a_planted_path_that_does_not_exist_is_found(tmp_path):
    root = plant(
        tmp_path,
        {
            **CLEAN,
            "docs/architecture.md": CLEAN["docs/architecture.md"] + "Then services/demo/src/demo_svc/usecases/x.py.\n",
            "docs/b.md": "The rule is in `libs/lore_runtime/src/lore_runtime/gone.py`; tag `contracts/v1.0.0`.\n",
        },
    )

    assert missing_paths(root) == [
        "docs/architecture.md:6: services/demo/src/demo_svc/usecases/x.py",
        "docs/b.md:1: libs/lore_runtime/src/lore_runtime/gone.py",
    ]


def test_a_heading_anchor_is_githubs():
    assert slug("Failed authentications (`gateway_svc/api/auth_failures.py`)") == (
        "failed-authentications-gateway_svcapiauth_failurespy"
    )
    assert slug("What one machine carries") == "what-one-machine-carries"
