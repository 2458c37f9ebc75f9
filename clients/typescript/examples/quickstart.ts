/**
 * Lore from TypeScript: remember, search and prime through the typed REST client, then let a model
 * use Lore's tools through any OpenAI-compatible Chat Completions endpoint (plain fetch here; the
 * `openai` package's `client.chat.completions.create` takes the same `tools` and returns the same
 * `tool_calls`).
 *
 *     LORE_URL=http://127.0.0.1:8080 LORE_API_KEY=... OPENAI_API_KEY=... node build/examples/quickstart.js
 *
 * With the Vercel AI SDK instead:
 *
 *     import { generateText, jsonSchema } from "ai";
 *     const tools = aiSdkTools(lore, binding, { jsonSchema });
 *     await generateText({ model, tools, prompt: "Where does my sister live?" });
 */
import { createLoreClient, openaiTools, resolveToolCall, ToolBinding, unwrap } from "@lore/client";

const lore = createLoreClient({ baseUrl: process.env["LORE_URL"], apiKey: process.env["LORE_API_KEY"] });
const scope = { userId: "u-noor", agentId: "aria" };

const { memories } = await unwrap(
  lore.POST("/v1/memories", {
    body: { memories: [{ content: "Noor's sister Lena moved to Porto in March 2024.", memoryType: "MEMORY_TYPE_FACT", scope }] },
    headers: { "Idempotency-Key": "quickstart-lena" }, // a retried write lands once
  }),
);
console.log("remembered", memories?.[0]?.id);

const { results } = await unwrap(lore.POST("/v1/memories:search", { body: { query: "Where does Lena live?", scope, k: 3 } }));
for (const hit of results ?? []) console.log(hit.score?.toFixed(3), hit.memory?.content);

const primed = await unwrap(lore.GET("/v1/memory/prime", { params: { query: { "scope.userId": scope.userId, "scope.agentId": scope.agentId } } }));
console.log(primed.formattedContext);

// The model's turn: Lore's tools, bound to this user and agent (the model never names whose memory).
const openaiKey = process.env["OPENAI_API_KEY"];
if (openaiKey) {
  const binding = new ToolBinding({ userId: scope.userId, agentId: scope.agentId });
  const messages: Record<string, unknown>[] = [{ role: "user", content: "Where does my sister live now?" }];
  for (let step = 0; step < 4; step++) {
    const answer = await fetch(`${process.env["OPENAI_BASE_URL"] ?? "https://api.openai.com/v1"}/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${openaiKey}` },
      body: JSON.stringify({ model: process.env["OPENAI_MODEL"] ?? "gpt-4o-mini", messages, tools: openaiTools() }),
    });
    const message = ((await answer.json()) as { choices: { message: Record<string, unknown> }[] }).choices[0]?.message ?? {};
    messages.push(message);
    const calls = (message["tool_calls"] ?? []) as { id: string }[];
    if (!calls.length) {
      console.log(message["content"]);
      break;
    }
    for (const call of calls) {
      const result = await resolveToolCall(lore, binding, call); // {"error": ...} when Lore refuses
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
}
