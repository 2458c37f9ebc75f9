/**
 * `LoreApiError` and the retry rule against a real gateway, as lore_client's tests check them:
 * the gateway's code, reason, field and request id on an error; an Idempotency-Key replaying the
 * first answer; a 429 waited out after `Retry-After` only for a GET or a request with an
 * Idempotency-Key (a second gateway with a small rate limit); a refused connection tried again on
 * the same terms; a server that never answers timed out.
 */
import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { test } from "node:test";

import { createLoreClient, type FetchResult, LoreApiError, pages, unwrap } from "@lore/client";
import { client, setting, unique } from "./stack.js";

/** A `fetch` that remembers the status of each attempt (0: no answer), sending through the real one. */
function recording(): { statuses: number[]; fetch: (request: Request) => Promise<Response> } {
  const statuses: number[] = [];
  return {
    statuses,
    fetch: async (request) => {
      try {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      } catch (error) {
        statuses.push(0);
        throw error;
      }
    },
  };
}

async function rejection(call: Promise<unknown>): Promise<LoreApiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof LoreApiError, String(error));
    return error;
  }
  assert.fail("the call succeeded");
}

test("a missing record is a LoreApiError with the gateway's code and request id", async () => {
  const lore = client();
  const missing = await rejection(
    unwrap(lore.GET("/v1/memories/{memory_id}", { params: { path: { memory_id: crypto.randomUUID() } } })),
  );
  assert.equal(missing.status, 404);
  assert.equal(missing.code, "NOT_FOUND");
  assert.ok(missing.requestId);
  assert.match(String(missing), /^LoreApiError: 404 NOT_FOUND: /);
});

test("bad input names the field; a missing credential names the reason", async () => {
  const invalid = await rejection(unwrap(client().POST("/v1/memories:search", { body: { query: "anything", k: 1000 } })));
  assert.equal(invalid.status, 400);
  assert.equal(invalid.code, "INVALID_ARGUMENT");
  assert.equal(invalid.field, "k");
  const anonymous = createLoreClient({ baseUrl: setting("LORE_URL") });
  const refused = await rejection(unwrap(anonymous.GET("/v1/sessions")));
  assert.equal(refused.status, 401);
  assert.equal(refused.reason, "MISSING_CREDENTIAL");
});

test("an Idempotency-Key replays the first answer and refuses another body", async () => {
  const lore = client();
  const key = unique("key");
  const scope = { userId: unique("u-idem") };
  const body = { memories: [{ content: "Ana keeps bees.", memoryType: "MEMORY_TYPE_FACT" as const, scope }] };
  const first = await unwrap(lore.POST("/v1/memories", { body, headers: { "Idempotency-Key": key } }));
  const again = await unwrap(lore.POST("/v1/memories", { body, headers: { "Idempotency-Key": key } }));
  assert.deepEqual(again, first);
  const other = { memories: [{ content: "Ana keeps goats.", memoryType: "MEMORY_TYPE_FACT" as const, scope }] };
  const reused = await rejection(unwrap(lore.POST("/v1/memories", { body: other, headers: { "Idempotency-Key": key } })));
  assert.equal(reused.status, 409);
  assert.equal(reused.reason, "IDEMPOTENCY_KEY_REUSED");
});

test("a 429 carries Retry-After; a GET and a keyed POST wait it out, a POST without a key does not", async () => {
  const options = { baseUrl: setting("LORE_LIMITED_URL"), apiKey: setting("LORE_LIMITED_KEY") };
  const once = createLoreClient({ ...options, maxRetries: 0 });
  /** Spends the bucket of memories:read until the gateway answers 429; that error. */
  async function exhaust(): Promise<LoreApiError> {
    for (;;) {
      const { error, response } = await once.GET("/v1/memories");
      if (response.status === 429) return LoreApiError.fromResponse(response, error);
      assert.equal(response.status, 200);
    }
  }
  const limited = await exhaust();
  assert.equal(limited.code, "RESOURCE_EXHAUSTED");
  assert.equal(limited.reason, "RATE_LIMITED");
  assert.equal(limited.retryAfter, 1);
  assert.equal(limited.metadata["scope"], "memories:read");

  /**
   * `attempt` on a spent bucket, with a fresh record of statuses. The bucket refills (2 a second):
   * should a token arrive between spending it and the call, the call is tried again on a spent one.
   */
  async function whenLimited<T>(attempt: (send: (request: Request) => Promise<Response>) => Promise<T>) {
    for (let round = 0; ; round++) {
      const seen = recording();
      await exhaust();
      const outcome = await attempt(seen.fetch).then(
        (value) => ({ value, error: undefined }),
        (error: unknown) => ({ value: undefined, error }),
      );
      if (seen.statuses[0] === 429 || round === 4) return { ...outcome, statuses: seen.statuses };
    }
  }

  const got = await whenLimited((send) => unwrap(createLoreClient({ ...options, fetch: send }).GET("/v1/memories")));
  assert.deepEqual(got.value?.memories ?? [], []);
  assert.deepEqual(got.statuses, [429, 200]);

  const search = { body: { query: "bees", scope: { userId: "u-limited" } } };
  const unkeyed = await whenLimited((send) =>
    unwrap(createLoreClient({ ...options, fetch: send }).POST("/v1/memories:search", search)),
  );
  assert.ok(unkeyed.error instanceof LoreApiError && unkeyed.error.status === 429, String(unkeyed.error));
  assert.deepEqual(unkeyed.statuses, [429]);

  const keyed = await whenLimited((send) =>
    unwrap(
      createLoreClient({ ...options, fetch: send }).POST("/v1/memories:search", {
        ...search,
        headers: { "Idempotency-Key": unique("search") },
      }),
    ),
  );
  assert.equal(keyed.error, undefined);
  assert.deepEqual(keyed.statuses, [429, 200]);

  const impatient = await whenLimited((send) =>
    unwrap(createLoreClient({ ...options, fetch: send, maxRetryWaitMs: 500 }).GET("/v1/memories")),
  );
  assert.ok(impatient.error instanceof LoreApiError && impatient.error.retryAfter === 1, String(impatient.error));
  assert.deepEqual(impatient.statuses, [429]);
});

/** A loopback server that closes each connection, or (`answer` false) accepts it and never answers. */
async function listening(answer: boolean): Promise<{ server: Server; url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    if (answer) socket.end();
    else sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address && typeof address === "object");
  return { server, url: `http://127.0.0.1:${address.port}`, sockets };
}

test("a refused connection is tried again for a GET and a keyed POST only, then UNAVAILABLE", async () => {
  const { server, url } = await listening(true);
  await new Promise((resolve) => server.close(resolve)); // nothing listens there now
  type Lore = ReturnType<typeof createLoreClient>;
  const cases: [(lore: Lore) => Promise<FetchResult<unknown>>, number][] = [
    [(lore) => lore.GET("/v1/sessions"), 3],
    [(lore) => lore.POST("/v1/sessions", { body: {} }), 1],
    [(lore) => lore.POST("/v1/sessions", { body: {}, headers: { "Idempotency-Key": "k" } }), 3],
  ];
  for (const [call, attempts] of cases) {
    const seen = recording();
    const lore = createLoreClient({ baseUrl: url, apiKey: "unused", fetch: seen.fetch, maxRetries: 2 });
    const failed = await rejection(unwrap(call(lore)));
    assert.equal(failed.status, 0);
    assert.equal(failed.code, "UNAVAILABLE");
    assert.deepEqual(seen.statuses, Array(attempts).fill(0));
  }
});

test("a server that never answers times out as DEADLINE_EXCEEDED", async () => {
  const { server, url, sockets } = await listening(false);
  try {
    const lore = createLoreClient({ baseUrl: url, timeoutMs: 300, maxRetries: 0 });
    const began = Date.now();
    const timedOut = await rejection(unwrap(lore.GET("/v1/status")));
    assert.equal(timedOut.code, "DEADLINE_EXCEEDED");
    assert.ok(Date.now() - began < 5_000);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("maxRetries below 0 is refused", () => {
  assert.throws(() => createLoreClient({ maxRetries: -1 }), RangeError);
});

test("pages reads every item of a list route across its pages", async () => {
  const lore = client();
  const scope = { userId: unique("u-pages") };
  const memories = Array.from({ length: 5 }, (_, n) => ({ content: `Fact number ${n} about the garden.`, memoryType: "MEMORY_TYPE_FACT" as const, scope }));
  const stored = await unwrap(lore.POST("/v1/memories", { body: { memories } }));
  const asked: (string | undefined)[] = [];
  const seen: string[] = [];
  for await (const memory of pages((pageToken) => {
    asked.push(pageToken);
    return lore.GET("/v1/memories", { params: { query: { "scope.userId": scope.userId, pageSize: 2, pageToken } } });
  }, "memories")) {
    seen.push(memory.id ?? "");
  }
  assert.deepEqual([...seen].sort(), (stored.memories ?? []).map((m) => m.id ?? "").sort());
  assert.equal(asked.length, 3);
  assert.equal(asked[0], undefined);
});

test("a proxy's body-less 502 reads as UNAVAILABLE; its 503 is waited out after Retry-After for a GET", async () => {
  // A loopback HTTP server standing where a proxy in front of the gateway would: it answers 502 with
  // text, and 503 with Retry-After: 0 before answering 200.
  const answers: [number, Record<string, string>, string][] = [
    [502, { "Content-Type": "text/html" }, "<html>Bad Gateway</html>"],
    [503, { "Retry-After": "0" }, ""],
    [200, { "Content-Type": "application/json" }, '{"status":"SERVING","services":{}}'],
  ];
  const server = createHttpServer((request, response) => {
    const [status, headers, body] = answers.shift() ?? [500, {}, ""];
    response.writeHead(status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address && typeof address === "object");
  try {
    const seen = recording();
    const lore = createLoreClient({ baseUrl: `http://127.0.0.1:${address.port}`, fetch: seen.fetch });
    const proxied = await rejection(unwrap(lore.POST("/v1/memories:search", { body: { query: "x" } })));
    assert.equal(proxied.status, 502);
    assert.equal(proxied.code, "UNAVAILABLE");
    assert.equal(proxied.message, "<html>Bad Gateway</html>");
    const status = await unwrap(lore.GET("/v1/status"));
    assert.equal(status.status, "SERVING");
    assert.deepEqual(seen.statuses, [502, 503, 200]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
