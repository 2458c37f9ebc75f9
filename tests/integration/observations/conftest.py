"""Fixtures of the observations store contract suites: each case runs on the in-memory fake and on
the Postgres adapter (as lore_app, under row-level security), in an org of its own."""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture(params=["fake", "postgres"])
def database(request: pytest.FixtureRequest):
    """None for the fake; the migrated database for Postgres (started only when that side runs)."""
    return request.getfixturevalue("migrated_pg") if request.param == "postgres" else None


@pytest.fixture
def org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"
