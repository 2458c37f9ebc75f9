/**
 * The walls between users and between organisations hold for this client as for lore_client
 * (tests/integration/gateway/test_cross_user.py, test_cross_tenant.py): a key pinned to user `ana`
 * cannot read `bo`'s records (404, as an id that does not exist) nor name `bo` (403 USER_PINNED)
 * nor use the org-wide routes; another organisation's key gets nothing of this one and changes nothing.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { LoreApiError, type LoreClient, unwrap } from "@lore/client";
import { client, setting, unique } from "./stack.js";

const agent = "aria";
let org: LoreClient;
let bo: { memory: string; session: string; observation: string; user: string };
let anaMemory: string;

async function refusal(call: Promise<unknown>): Promise<LoreApiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof LoreApiError, String(error));
    return error;
  }
  assert.fail("the call succeeded");
}

before(async () => {
  org = client();
  const pinnedUser = setting("LORE_PINNED_USER");
  const user = `bo-${unique("x")}`;
  const remembered = await unwrap(
    org.POST("/v1/memories", {
      body: {
        memories: [
          { content: "Bo's locker code is 4711.", memoryType: "MEMORY_TYPE_FACT", scope: { userId: user, agentId: agent } },
          { content: "Ana collects maps.", memoryType: "MEMORY_TYPE_FACT", scope: { userId: pinnedUser, agentId: agent } },
        ],
      },
    }),
  );
  const session = await unwrap(org.POST("/v1/sessions", { body: { scope: { userId: user, agentId: agent } } }));
  const observed = await unwrap(
    org.POST("/v1/observations:observe", {
      body: {
        agentId: agent,
        scope: { userId: user },
        candidate: {
          kind: "OBSERVATION_KIND_OPERATOR_PREFERENCE",
          subjectType: "SUBJECT_TYPE_ENTITY",
          subjectId: user,
          slot: "editor",
          summary: "Bo prefers vim.",
        },
      },
    }),
  );
  bo = {
    user,
    memory: remembered.memories?.[0]?.id ?? "",
    session: session.session?.id ?? "",
    observation: observed.observation?.id ?? "",
  };
  anaMemory = remembered.memories?.[1]?.id ?? "";
  assert.ok(bo.memory && bo.session && bo.observation && anaMemory);
});

test("a key pinned to one user gets 404 for the other user's records, as for ids that do not exist", async () => {
  const ana = client(setting("LORE_PINNED_KEY"));
  const memory = { params: { path: { memory_id: bo.memory } } };
  const observation = { params: { path: { observation_id: bo.observation } } };
  for (const call of [
    () => unwrap(ana.GET("/v1/memories/{memory_id}", memory)),
    () => unwrap(ana.PATCH("/v1/memories/{memory_id}", { ...memory, body: { memory: { importance: 0.1 }, updateMask: "importance" } })),
    () => unwrap(ana.DELETE("/v1/memories/{memory_id}", memory)),
    () => unwrap(ana.GET("/v1/sessions/{session_id}", { params: { path: { session_id: bo.session } } })),
    () => unwrap(ana.GET("/v1/observations/{observation_id}", observation)),
    () => unwrap(ana.POST("/v1/observations/{observation_id}:confirm", { ...observation, body: { note: "yes" } })),
  ]) {
    assert.equal((await refusal(call())).status, 404);
  }
  // Still there for the org: nothing was changed.
  const kept = await unwrap(org.GET("/v1/memories/{memory_id}", memory));
  assert.notEqual(kept.memory?.importance, 0.1);
  assert.equal(kept.memory?.status, "MEMORY_STATUS_ACTIVE");
  // Its own memory it reads.
  const own = await unwrap(ana.GET("/v1/memories/{memory_id}", { params: { path: { memory_id: anaMemory } } }));
  assert.equal(own.memory?.content, "Ana collects maps.");
});

test("a key pinned to one user may not name the other, and lists only its own", async () => {
  const ana = client(setting("LORE_PINNED_KEY"));
  for (const call of [
    () => unwrap(ana.GET("/v1/memories", { params: { query: { "scope.userId": bo.user } } })),
    () => unwrap(ana.POST("/v1/memories:search", { body: { query: "locker code", scope: { userId: bo.user } } })),
    () => unwrap(ana.GET("/v1/memory/prime", { params: { query: { "scope.userId": bo.user, "scope.agentId": agent } } })),
    () => unwrap(ana.POST("/v1/context:assemble", { body: { scope: { userId: bo.user }, message: "What is my locker code?" } })),
    () => unwrap(ana.GET("/v1/users/{user_id}/profile", { params: { path: { user_id: bo.user } } })),
  ]) {
    const refused = await refusal(call());
    assert.equal(refused.status, 403);
    assert.equal(refused.reason, "USER_PINNED");
  }
  const listed = await unwrap(ana.GET("/v1/memories"));
  assert.ok(listed.memories?.length);
  assert.ok(listed.memories.every((memory) => memory.scope?.userId === setting("LORE_PINNED_USER")));
  const found = await unwrap(ana.POST("/v1/memories:search", { body: { query: "locker code 4711", scopeMatch: "SCOPE_MATCH_CONTEXT" } }));
  assert.ok(!JSON.stringify(found).includes("4711"));
});

test("a key pinned to one user cannot use the org-wide routes", async () => {
  const ana = client(setting("LORE_PINNED_KEY"));
  for (const call of [
    () => unwrap(ana.POST("/v1/admin/decay:run", { body: {} })),
    () => unwrap(ana.GET("/v1/admin/jobs")),
    () => unwrap(ana.POST("/v1/engagement:advanceWeek", { body: {} })),
  ]) {
    const refused = await refusal(call());
    assert.equal(refused.status, 403);
    assert.equal(refused.reason, "USER_PINNED");
  }
});

test("another organisation's key gets nothing of this one and changes nothing", async () => {
  const other = client(setting("LORE_OTHER_ORG_KEY"));
  const memory = { params: { path: { memory_id: bo.memory } } };
  for (const call of [
    () => unwrap(other.GET("/v1/memories/{memory_id}", memory)),
    () => unwrap(other.PATCH("/v1/memories/{memory_id}", { ...memory, body: { memory: { importance: 0.1 }, updateMask: "importance" } })),
    () => unwrap(other.DELETE("/v1/memories/{memory_id}", memory)),
    () => unwrap(other.GET("/v1/sessions/{session_id}", { params: { path: { session_id: bo.session } } })),
    () => unwrap(other.GET("/v1/observations/{observation_id}", { params: { path: { observation_id: bo.observation } } })),
  ]) {
    assert.equal((await refusal(call())).status, 404);
  }
  const listed = await unwrap(other.GET("/v1/memories", { params: { query: { "scope.userId": bo.user } } }));
  assert.deepEqual(listed.memories ?? [], []);
  const found = await unwrap(other.POST("/v1/memories:search", { body: { query: "locker code", scope: { userId: bo.user } } }));
  assert.deepEqual(found.results ?? [], []);
  const sessions = await unwrap(other.GET("/v1/sessions", { params: { query: { "scope.userId": bo.user } } }));
  assert.deepEqual(sessions.sessions ?? [], []);
  assert.equal((await unwrap(org.GET("/v1/memories/{memory_id}", memory))).memory?.status, "MEMORY_STATUS_ACTIVE");
});
