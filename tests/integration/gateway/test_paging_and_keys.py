"""Through REST on real stores: following nextPageToken returns each memory exactly once, among
ties of creation time and salience; a memory's idempotency key replays or refuses, never overwrites."""

import uuid

import pytest

BATCHES = 3
PER_BATCH = 20  # one Remember call: every item of a batch has the same creation time


async def _populate(client, user: str) -> set[str]:
    ids: set[str] = set()
    for batch in range(BATCHES):
        written = await client.post(
            "/v1/memories",
            json={
                "memories": [
                    {
                        "content": f"Note {batch}-{n} about the garden.",
                        "memoryType": "MEMORY_TYPE_FACT",
                        "scope": {"userId": user},
                    }
                    for n in range(PER_BATCH)
                ]
            },
        )
        assert written.status_code == 200, written.text
        ids |= {memory["id"] for memory in written.json()["memories"]}
    return ids


@pytest.mark.parametrize("order", ["MEMORY_ORDER_NEWEST", "MEMORY_ORDER_SALIENCE"])
async def test_following_page_tokens_returns_every_memory_exactly_once(client_for, org_id, order) -> None:
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    written = await _populate(client, user)
    for size in (7, 13, 60):
        seen: list[str] = []
        token = ""
        while True:
            params = {"scope.userId": user, "pageSize": size, "orderBy": order}
            if token:
                params["pageToken"] = token
            page = await client.get("/v1/memories", params=params)
            assert page.status_code == 200, page.text
            seen += [memory["id"] for memory in page.json()["memories"]]
            if not (token := page.json().get("nextPageToken", "")):
                break
        assert len(seen) == len(set(seen)) == len(written) and set(seen) == written, f"page size {size}"


async def test_a_page_token_is_refused_for_other_filters_with_the_field_named(client_for, org_id) -> None:
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    await _populate(client, user)
    first = await client.get("/v1/memories", params={"scope.userId": user, "pageSize": 5})
    token = first.json()["nextPageToken"]
    other = await client.get("/v1/memories", params={"scope.userId": "someone-else", "pageSize": 5, "pageToken": token})
    assert other.status_code == 400
    assert other.json()["error"]["details"][0]["metadata"]["field"] == "pageToken"


def _memory(content: str, **fields) -> dict:
    return {
        "content": content,
        "memoryType": "MEMORY_TYPE_FACT",
        "scope": {"userId": "u-keys"},
        "idempotencyKey": "k1",
        **fields,
    }


async def test_an_idempotency_key_replays_its_first_write_and_refuses_another(client_for, org_id) -> None:
    client = await client_for(org_id)
    first = await client.post("/v1/memories", json={"memories": [_memory("Content A.")]})
    assert first.status_code == 200, first.text
    (memory,) = first.json()["memories"]

    replay = await client.post("/v1/memories", json={"memories": [_memory("Content A.")]})
    assert replay.status_code == 200 and replay.json()["memories"][0]["id"] == memory["id"]

    for changed in (
        _memory("Content B."),
        _memory("Content A.", memoryType="MEMORY_TYPE_OPINION"),
        _memory("Content A.", validAt="2023-05-08T13:56:00Z"),
        _memory("Content A.", metadata={"source": "crm"}),
    ):
        refused = await client.post(
            "/v1/memories", json={"memories": [_memory("Unrelated.", idempotencyKey="k2"), changed]}
        )
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert error["details"][0]["reason"] == "IDEMPOTENCY_KEY_REUSED"
        assert error["details"][0]["metadata"]["field"] == "memories[1].idempotencyKey"
        assert error["message"].startswith("memories[1].idempotencyKey: ")

    stored = await client.get(f"/v1/memories/{memory['id']}")
    assert stored.json()["memory"]["content"] == "Content A."
    listed = await client.get("/v1/memories", params={"scope.userId": "u-keys"})
    assert [item["id"] for item in listed.json()["memories"]] == [memory["id"]]  # nothing of a refused batch
