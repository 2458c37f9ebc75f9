/**
 * The tools are lore_client.tools in TypeScript: the same definitions in each vendor's shape and the
 * same argument errors as the Python catalogue (dumped to LORE_PYTHON_TOOLS by the pytest that runs
 * these tests), and each executor works against a real gateway for the bound user only.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  aiSdkTools,
  anthropicTools,
  checkArguments,
  openaiTools,
  resolveToolCall,
  TOOL_NAMES,
  ToolArgumentError,
  ToolBinding,
  ToolCallError,
  unwrap,
  UnknownToolError,
} from "@lore/client";
import { client, unique } from "./stack.js";

interface PythonTools {
  openai: unknown[];
  openaiResponses: unknown[];
  anthropic: unknown[];
  argumentErrors: { tool: string; arguments: Record<string, unknown>; error: string; argument: string | null; unknown: boolean }[];
}

const python = JSON.parse(readFileSync(process.env["LORE_PYTHON_TOOLS"] ?? "", "utf8")) as PythonTools;

test("the definitions equal lore_client.tools' in OpenAI's and Anthropic's shapes", () => {
  assert.deepEqual(openaiTools(), python.openai);
  assert.deepEqual(openaiTools({ responsesApi: true }), python.openaiResponses);
  assert.deepEqual(anthropicTools(), python.anthropic);
});

test("the Vercel AI SDK record holds every tool, its schema wrapped by the SDK's jsonSchema", () => {
  const wrapped: unknown[] = [];
  const tools = aiSdkTools(client(), new ToolBinding({ userId: "u", agentId: "a" }), {
    jsonSchema: (schema) => {
      wrapped.push(schema);
      return { jsonSchema: schema };
    },
  });
  assert.deepEqual(Object.keys(tools), [...TOOL_NAMES]);
  const anthropic = python.anthropic as { name: string; description: string; input_schema: unknown }[];
  for (const expected of anthropic) {
    const tool = tools[expected.name as keyof typeof tools];
    assert.equal(tool.description, expected.description);
    assert.deepEqual(tool.inputSchema, { jsonSchema: expected.input_schema });
    assert.equal(tool.parameters, tool.inputSchema);
  }
  assert.equal(wrapped.length, TOOL_NAMES.length);
});

test("bad arguments are refused with lore_client's messages", () => {
  assert.ok(python.argumentErrors.length >= 5);
  for (const expected of python.argumentErrors) {
    assert.throws(
      () => checkArguments(expected.tool, expected.arguments),
      (error: unknown) => {
        assert.ok(error instanceof ToolCallError);
        assert.equal(error.message, expected.error);
        assert.equal(error.tool, expected.tool);
        assert.equal(error instanceof UnknownToolError, expected.unknown);
        if (expected.argument !== null) assert.equal((error as ToolArgumentError).argument, expected.argument);
        return true;
      },
    );
  }
});

test("a binding needs a user and an agent", () => {
  assert.throws(() => new ToolBinding({ userId: " ", agentId: "aria" }), /userId is required/);
});

test("the executors remember, search, record, observe and forget for the bound user", async () => {
  const lore = client();
  const binding = new ToolBinding({ userId: unique("u-tools"), agentId: "aria" });
  const call = (name: string, args: Record<string, unknown>) =>
    resolveToolCall(lore, binding, { type: "function", function: { name, arguments: JSON.stringify(args) } });

  const remembered = (await call("remember", { content: "Noor's sister Lena moved to Porto in March 2024.", entities: ["Lena"] })) as {
    remembered: { id: string; type: string; content: string };
  };
  assert.equal(remembered.remembered.type, "fact");
  const found = (await call("search_memories", { query: "Where does Noor's sister live?", k: 3 })) as { results: { id: string; score: number }[] };
  assert.equal(found.results[0]?.id, remembered.remembered.id);

  // The Responses API's and Anthropic's shapes of a call.
  const context = (await resolveToolCall(lore, binding, { type: "function_call", name: "get_context", arguments: '{"message":"Where is Lena?"}' })) as {
    context: string;
  };
  assert.match(context.context, /Porto/);
  const primed = (await resolveToolCall(lore, binding, { type: "tool_use", name: "prime", input: {} })) as { context: string };
  assert.equal(typeof primed.context, "string");
  const profile = (await resolveToolCall(lore, binding, "get_user_profile", {})) as { profile: string; lines: unknown[] };
  assert.ok(Array.isArray(profile.lines));

  const first = (await call("record_turn", { user_message: "I started pottery classes.", assistant_reply: "How fun!" })) as {
    sessionId: string;
    userTurn: { role: string };
    assistantTurn: { role: string };
  };
  assert.deepEqual([first.userTurn.role, first.assistantTurn.role], ["user", "assistant"]);
  const second = (await call("record_turn", { user_message: "They are on Tuesdays.", assistant_reply: "Noted." })) as { sessionId: string };
  assert.equal(second.sessionId, first.sessionId); // the user's active session with the agent

  const observed = (await call("observe", {
    kind: "operator_preference",
    subject_id: "noor",
    slot: "drink",
    summary: "Noor prefers green tea.",
    evidence: "I only drink green tea.",
  })) as { outcome: string; belief: { id: string } };
  assert.equal(observed.outcome, "created");
  const beliefs = (await call("search_beliefs", { query: "green tea" })) as { results: { id: string }[] };
  assert.ok(beliefs.results.some((hit) => hit.id === observed.belief.id));

  const forgotten = await call("forget_memory", { memory_id: remembered.remembered.id });
  assert.deepEqual(forgotten, { forgotten: remembered.remembered.id });
  const about = (await call("forget_about", { about: "pottery classes" })) as { status: string };
  assert.ok(about.status);
});

test("a tool never reaches another user's memory, and a refusal is an error result", async () => {
  const lore = client();
  const other = await unwrap(
    lore.POST("/v1/memories", {
      body: { memories: [{ content: "Bo's bike is red.", memoryType: "MEMORY_TYPE_FACT", scope: { userId: unique("u-bo") } }] },
    }),
  );
  const otherId = other.memories?.[0]?.id ?? "";
  const binding = new ToolBinding({ userId: unique("u-ana"), agentId: "aria" });
  const tools = aiSdkTools(lore, binding);
  const refused = await tools.forget_memory.execute({ memory_id: otherId });
  assert.deepEqual(refused, { error: { message: `memory ${otherId} not found`, code: "NOT_FOUND", status: 404 } });
  assert.equal((await unwrap(lore.GET("/v1/memories/{memory_id}", { params: { path: { memory_id: otherId } } }))).memory?.status, "MEMORY_STATUS_ACTIVE");
  const missing = (await tools.forget_memory.execute({ memory_id: crypto.randomUUID() })) as { error: { status: number; code: string } };
  assert.equal(missing.error.status, 404);
  assert.equal(missing.error.code, "NOT_FOUND");
  await assert.rejects(tools.observe.execute({ kind: "world_fact", subject_id: "x", summary: "y" }), ToolArgumentError);
});
