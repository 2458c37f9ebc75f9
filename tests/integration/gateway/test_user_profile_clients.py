"""The user profile through both Python clients (``get_user_profile``), on the running services."""

from __future__ import annotations

import uuid

import httpx
from lore_client import LoreClient, NewMemory, SyncLoreClient

from tests.integration.gateway.conftest import _create_key
from tests.integration.gateway.test_lore_client import served_gateway  # noqa: F401 - a fixture
from tests.integration.gateway.test_sync_lore_client import blocking, url_and_key  # noqa: F401 - a fixture

FACTS = [
    NewMemory(content="The user's brother Tomas teaches chemistry in Vilnius.", memory_type="fact"),
    NewMemory(content="The user cannot eat shellfish: an allergy since childhood.", memory_type="fact"),
    NewMemory(content="The user repainted the shed on Sunday.", memory_type="fact"),  # no profile topic
]


async def test_the_async_client_reads_the_profile(gateway, migrated_pg, org_id):
    user = f"u-{uuid.uuid4().hex[:8]}"
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as lore:
        stored = await lore.remember(FACTS, scope={"userId": user, "agentId": "aria"})
        profile = await lore.get_user_profile(user, agent_id="aria", user_profile="Goes by Vytas.")

    assert [line.kind for line in profile.lines] == ["caller", "fact", "fact"]
    assert [line.source_id for line in profile.lines[1:]] == [stored[0].id, stored[1].id]
    assert profile.lines[1].updated_at is not None and profile.lines[0].source_id == ""
    assert "shed" not in profile.text and profile.tokens > 0


async def test_the_sync_client_reads_the_profile(url_and_key):  # noqa: F811 - the fixture imported above
    user = f"u-{uuid.uuid4().hex[:8]}"

    def work(lore: SyncLoreClient):
        lore.remember(FACTS, scope=user)
        return lore.get_user_profile(user), lore.get_user_profile(f"u-{uuid.uuid4().hex[:8]}")

    profile, nobody = await blocking(url_and_key, work)
    assert [line.text for line in profile.lines] == [FACTS[0].content, FACTS[1].content]
    assert nobody.lines == () and nobody.text == "" and nobody.tokens == 0
