/**
 * Lore's tools for a model, as `lore_client.tools` in Python: the same catalogue (names,
 * descriptions and JSON schemas, generated from the Python one into `catalogue.ts`), the same
 * argument checks and the same executors, in the shapes of the Vercel AI SDK (`aiSdkTools`) and
 * OpenAI's SDK (`openaiTools` + `resolveToolCall`), and Anthropic's (`anthropicTools`).
 *
 * **Whose memory.** No tool takes a user, agent or team: they come from the `ToolBinding` the
 * integrator builds, so a prompt-injected model cannot reach another user's memory by naming them.
 * A tool addressing a record by id (`forget_memory`) checks that the record is the bound user's first.
 *
 * **Errors.** An unknown tool or arguments the schema refuses throw `ToolCallError` naming the tool
 * and the argument. A `LoreApiError` (the gateway refused or failed) becomes an error result,
 * `{"error": {"message", "code", "status", ...}}`, to hand back to the model like any result.
 */
import { CATALOGUE } from "./catalogue.js";
import { type LoreClient, unwrap } from "./client.js";
import { LoreApiError } from "./errors.js";
import type { components } from "./schema.js";

type Json = Record<string, unknown>;
type Schemas = components["schemas"];

export type ToolName = (typeof CATALOGUE)[number]["name"];
export const TOOL_NAMES: readonly ToolName[] = CATALOGUE.map((tool) => tool.name);

/** Whose memory the tools act on, fixed by the integrator (configuration or credential), never the model. */
export class ToolBinding {
  readonly userId: string;
  readonly agentId: string;
  readonly teamId: string;
  /** The conversation `record_turn` writes to and `get_context` reads; empty: the user's active session with the agent, or a new one. */
  readonly sessionId: string;

  constructor(binding: { userId: string; agentId: string; teamId?: string; sessionId?: string }) {
    for (const name of ["userId", "agentId"] as const) {
      if (!binding[name]?.trim()) {
        throw new Error(`ToolBinding.${name} is required: the tools act for one user and one agent`);
      }
    }
    this.userId = binding.userId;
    this.agentId = binding.agentId;
    this.teamId = binding.teamId ?? "";
    this.sessionId = binding.sessionId ?? "";
  }

  get scope(): Schemas["Scope"] {
    return compact({ userId: this.userId, agentId: this.agentId, teamId: this.teamId });
  }
}

/** The call cannot be made as given: an unknown tool, or arguments its schema refuses. */
export class ToolCallError extends Error {
  readonly tool: string;
  constructor(tool: string, message: string) {
    super(message);
    this.name = "ToolCallError";
    this.tool = tool;
  }
}

/** No tool of the catalogue has that name. */
export class UnknownToolError extends ToolCallError {
  constructor(tool: string, message: string) {
    super(tool, message);
    this.name = "UnknownToolError";
  }
}

/** `argument`: the offending argument's name (`""` for the arguments as a whole). */
export class ToolArgumentError extends ToolCallError {
  readonly argument: string;
  constructor(tool: string, argument: string, rule: string) {
    super(tool, `${tool}: ${argument ? `${argument}: ` : ""}${rule}`);
    this.name = "ToolArgumentError";
    this.argument = argument;
  }
}

/** A tool's result and whether it is an error result (`{"error": ...}`, from a `LoreApiError`). */
export interface ToolOutcome {
  result: Json;
  isError: boolean;
}

interface JsonSchemaRules {
  type: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: JsonSchemaRules;
  enum?: readonly string[];
}

interface ParametersSchema {
  properties: Record<string, JsonSchemaRules>;
  required: readonly string[];
}

const NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"; // a non-space character, and no NUL (the gateway's, as lore_client's)

/** A copy of each tool's JSON Schema (callers may edit what they get; the catalogue stays as it is). */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A tool's JSON Schema: an object of named arguments. */
export interface ToolParameters {
  [rule: string]: unknown;
  type: "object";
  properties: Record<string, unknown>;
  required: string[];
}

/** A function definition of OpenAI's Chat Completions `tools` (`ChatCompletionTool`). */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: ToolParameters };
}

/** A function definition of OpenAI's Responses API `tools` (`FunctionTool`). */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: ToolParameters;
  strict: boolean;
}

/** A tool definition of Anthropic's Messages API `tools`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ToolParameters;
}

/** Function definitions for OpenAI's Chat Completions `tools`, or, with `responsesApi`, the Responses API's flat form. */
export function openaiTools(options?: { responsesApi?: false }): OpenAIChatTool[];
export function openaiTools(options: { responsesApi: true }): OpenAIResponsesTool[];
export function openaiTools(options: { responsesApi?: boolean } = {}): OpenAIChatTool[] | OpenAIResponsesTool[] {
  if (options.responsesApi) {
    // strict: false — strict mode would make every argument required; most of these are optional.
    return CATALOGUE.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: copy(t.parameters) as unknown as ToolParameters,
      strict: false,
    }));
  }
  return CATALOGUE.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: copy(t.parameters) as unknown as ToolParameters },
  }));
}

/** Tool definitions for Anthropic's Messages API `tools` (`name`, `description`, `input_schema`). */
export function anthropicTools(): AnthropicTool[] {
  return CATALOGUE.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: copy(t.parameters) as unknown as ToolParameters,
  }));
}

/** A Vercel AI SDK tool: `inputSchema` (AI SDK 5) and `parameters` (AI SDK 4) hold the same schema. */
export interface AiSdkTool<Schema> {
  description: string;
  inputSchema: Schema;
  parameters: Schema;
  /** Takes the model's arguments as the SDK gives them (checked here, as `resolveToolCall` checks them). */
  execute: (args: unknown) => Promise<Json>;
}

/**
 * The tools as the Vercel AI SDK's `tools` record, bound to `binding`: pass the SDK's own `jsonSchema`
 * (`import { jsonSchema } from "ai"`), which wraps each JSON Schema; without it the plain schema is given.
 * `execute` checks the arguments (throwing `ToolArgumentError`) and answers an error result when Lore refuses.
 */
export function aiSdkTools<Schema = ToolParameters>(
  lore: LoreClient,
  binding: ToolBinding,
  options: { jsonSchema?: (schema: ToolParameters) => Schema } = {},
): Record<ToolName, AiSdkTool<Schema>> {
  const wrap = options.jsonSchema ?? ((schema: ToolParameters) => schema as Schema);
  const tools: Partial<Record<ToolName, AiSdkTool<Schema>>> = {};
  for (const t of CATALOGUE) {
    const schema = wrap(copy(t.parameters) as unknown as ToolParameters);
    tools[t.name] = {
      description: t.description,
      inputSchema: schema,
      parameters: schema,
      execute: async (args: unknown) => {
        const parsed = parseArguments(t.name, args);
        checkArguments(t.name, parsed);
        return (await executeTool(lore, binding, t.name, parsed)).result;
      },
    };
  }
  return tools as Record<ToolName, AiSdkTool<Schema>>;
}

// -- a model's tool call ------------------------------------------------------------------------

/**
 * The tool name and arguments of a call in any of the shapes models produce: OpenAI Chat Completions
 * (`{type: "function", function: {name, arguments: "<json>"}}`), OpenAI Responses
 * (`{type: "function_call", name, arguments}`), Anthropic (`{type: "tool_use", name, input}`), plain
 * `{name, arguments}`, or the name as `call` with `args` beside it.
 */
export function parseToolCall(call: unknown, args?: unknown): [string, Json] {
  if (typeof call === "string") return [call, parseArguments(call, args ?? {})];
  if (typeof call !== "object" || call === null) throw new ToolCallError("", `not a tool call: ${typeof call}`);
  let document = call as Json;
  if (typeof document["function"] === "object" && document["function"] !== null) {
    document = document["function"] as Json;
  }
  const name = document["name"];
  if (typeof name !== "string" || !name) {
    throw new ToolCallError("", "a tool call names its tool: no name found in the call");
  }
  const raw = "input" in document ? document["input"] : document["arguments"];
  return [name, parseArguments(name, raw ?? {})];
}

function parseArguments(tool: string, raw: unknown): Json {
  let value = raw;
  if (typeof value === "string") {
    try {
      value = value.trim() ? JSON.parse(value) : {};
    } catch (error) {
      throw new ToolArgumentError(tool, "", `the arguments are not JSON (${(error as Error).message})`);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ToolArgumentError(tool, "", "the arguments must be a JSON object");
  }
  return { ...(value as Json) };
}

function toolNamed(name: string): (typeof CATALOGUE)[number] {
  const tool = CATALOGUE.find((t) => t.name === name);
  if (!tool) throw new UnknownToolError(name, `unknown tool '${name}' (known: ${TOOL_NAMES.join(", ")})`);
  return tool;
}

/** Refuse arguments the tool's schema refuses, naming the argument and the rule (as `check_arguments` in Python). */
export function checkArguments(name: string, args: Json): void {
  const schema = toolNamed(name).parameters as unknown as ParametersSchema;
  for (const required of schema.required) {
    if (!(required in args)) throw new ToolArgumentError(name, required, "required");
  }
  for (const [argument, value] of Object.entries(args)) {
    const rules = schema.properties[argument];
    if (!rules) {
      const known = Object.keys(schema.properties).join(", ");
      throw new ToolArgumentError(name, argument, `unknown argument (known: ${known})`);
    }
    const problem = ruleProblem(rules, value);
    if (problem) throw new ToolArgumentError(name, argument, problem);
  }
}

function ruleProblem(rules: JsonSchemaRules, value: unknown): string {
  if (rules.type === "string") {
    if (typeof value !== "string") return "must be a string";
    const length = [...value].length; // code points, as Python counts them
    if (length < (rules.minLength ?? 0) || (rules.pattern === NOT_BLANK && !value.trim())) return "must not be empty";
    if (rules.maxLength !== undefined && length > rules.maxLength) return `at most ${rules.maxLength} characters`;
    if (rules.pattern !== undefined && !new RegExp(rules.pattern, "u").test(value)) return `must match ${rules.pattern}`;
  } else if (rules.type === "integer" || rules.type === "number") {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      return `must be a${rules.type === "integer" ? "n integer" : " number"}`;
    }
    if (rules.type === "integer" && !Number.isInteger(value)) return "must be an integer";
    if (!((rules.minimum ?? value) <= value && value <= (rules.maximum ?? value))) {
      return `must be between ${rules.minimum} and ${rules.maximum}`;
    }
  } else if (rules.type === "array") {
    if (!Array.isArray(value)) return "must be an array";
    if (rules.maxItems !== undefined && value.length > rules.maxItems) return `at most ${rules.maxItems} items`;
    for (const [index, item] of value.entries()) {
      const problem = ruleProblem(rules.items as JsonSchemaRules, item);
      if (problem) return `[${index}] ${problem}`;
    }
  }
  if (rules.enum && !rules.enum.includes(value as string)) return `must be one of ${rules.enum.join(", ")}`;
  return "";
}

/** What a model is told when Lore refused or failed: the REST message, code and the field it names. */
export function errorResult(error: LoreApiError): Json {
  const found: Json = { message: error.message, code: error.code, status: error.status };
  if (error.reason) found["reason"] = error.reason;
  if (error.field) found["field"] = error.field;
  return { error: found };
}

/** Run tool `name` with checked `args` for `binding`; a `LoreApiError` becomes an error result. */
export async function executeTool(lore: LoreClient, binding: ToolBinding, name: string, args: Json): Promise<ToolOutcome> {
  const executor = EXECUTORS[toolNamed(name).name];
  try {
    return { result: await executor(lore, binding, args), isError: false };
  } catch (error) {
    if (error instanceof LoreApiError) return { result: errorResult(error), isError: true };
    throw error;
  }
}

/**
 * Execute a model's tool call (any shape `parseToolCall` reads) for `binding`; the JSON-able result,
 * `{"error": {...}}` when Lore refused or failed. Throws `ToolCallError` for an unknown tool or bad arguments.
 */
export async function resolveToolCall(lore: LoreClient, binding: ToolBinding, call: unknown, args?: unknown): Promise<Json> {
  const [name, parsed] = parseToolCall(call, args);
  checkArguments(name, parsed);
  return (await executeTool(lore, binding, name, parsed)).result;
}

// -- executors --------------------------------------------------------------------------------

type Executor = (lore: LoreClient, binding: ToolBinding, args: Json) => Promise<Json>;

/** Proto3 JSON leaves unset fields out: drop `undefined`, `null`, `""`, `[]` and `{}`. */
function compact<T extends Json>(document: T): T {
  return Object.fromEntries(
    Object.entries(document).filter(
      ([, v]) =>
        v !== undefined &&
        v !== null &&
        v !== "" &&
        !(Array.isArray(v) && v.length === 0) &&
        !(typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0),
    ),
  ) as T;
}

/** `enumName("MEMORY_TYPE", "fact") === "MEMORY_TYPE_FACT"`; a full name passes unchanged. */
function enumName(prefix: string, value: string): string {
  const name = value.trim().toUpperCase().replace(/[- ]/g, "_");
  return name.startsWith(`${prefix}_`) ? name : `${prefix}_${name}`;
}

function short(value: string | undefined, prefix: string): string {
  const found = value ?? "";
  return found.startsWith(prefix) ? found.slice(prefix.length).toLowerCase() : found;
}

function round(value: number | undefined, digits: number): number {
  const scale = 10 ** digits;
  return Math.round((value ?? 0) * scale) / scale;
}

function memoryResult(memory: Schemas["Memory"] | undefined): Json {
  const found: Json = { id: memory?.id ?? "", content: memory?.content ?? "", type: short(memory?.memoryType, "MEMORY_TYPE_") };
  const when = memory?.validAt || memory?.createdAt;
  if (when) found["when"] = when;
  return found;
}

function beliefResult(observation: Schemas["Observation"] | undefined): Json {
  return {
    id: observation?.id ?? "",
    summary: observation?.summary ?? "",
    kind: short(observation?.kind, "OBSERVATION_KIND_"),
    subject: observation?.subjectId ?? "",
    confidence: round(observation?.confidence, 3),
    status: short(observation?.status, "OBSERVATION_STATUS_"),
  };
}

function turnResult(turn: Schemas["Turn"] | undefined): Json {
  return { id: turn?.id ?? "", sequence: turn?.sequence ?? 0, role: short(turn?.role, "TURN_ROLE_") };
}

function notFound(what: string, id: string): LoreApiError {
  return new LoreApiError({ status: 404, code: "NOT_FOUND", message: `${what} ${id} not found` });
}

const str = (value: unknown, fallback = ""): string => (typeof value === "string" ? value : fallback);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

const EXECUTORS: Record<ToolName, Executor> = {
  async remember(lore, binding, args) {
    const memory = compact({
      content: str(args["content"]),
      memoryType: enumName("MEMORY_TYPE", str(args["memory_type"], "fact")) as Schemas["MemoryType"],
      scope: binding.scope,
      importance: args["importance"] as number | undefined,
      validAt: args["valid_at"] as string | undefined,
      entities: strings(args["entities"]),
    }) as Schemas["MemoryInput"];
    const stored = await unwrap(lore.POST("/v1/memories", { body: { memories: [memory] } }));
    return { remembered: memoryResult(stored.memories?.[0]) };
  },

  async search_memories(lore, binding, args) {
    const body = compact({
      query: str(args["query"]),
      scope: binding.scope,
      scopeMatch: "SCOPE_MATCH_CONTEXT",
      k: (args["k"] as number | undefined) ?? 8,
      memoryTypes: strings(args["memory_types"]).map((t) => enumName("MEMORY_TYPE", t)),
    }) as Schemas["RecallRequest"];
    const found = await unwrap(lore.POST("/v1/memories:search", { body }));
    return {
      results: (found.results ?? []).map((hit) => ({ ...memoryResult(hit.memory), score: round(hit.score, 4) })),
    };
  },

  async get_context(lore, binding, args) {
    const body = compact({ sessionId: binding.sessionId, scope: binding.scope, message: str(args["message"]) });
    const found = await unwrap(lore.POST("/v1/context:assemble", { body: body as Schemas["AssembleContextRequest"] }));
    return { context: found.context?.text ?? "", firstSession: found.context?.firstSession ?? false };
  },

  async prime(lore, binding, args) {
    const query = compact({
      "scope.userId": binding.userId,
      "scope.agentId": binding.agentId,
      "scope.teamId": binding.teamId,
      initialMessage: str(args["initial_message"]),
      budgetTokens: args["budget_tokens"] as number | undefined,
    });
    const primed = await unwrap(lore.GET("/v1/memory/prime", { params: { query } }));
    return { context: primed.formattedContext ?? "", entities: [...(primed.entities ?? [])] };
  },

  async get_user_profile(lore, binding) {
    const query = compact({ agentId: binding.agentId, teamId: binding.teamId });
    const found = await unwrap(
      lore.GET("/v1/users/{user_id}/profile", { params: { path: { user_id: binding.userId }, query } }),
    );
    const lines = (found.profile?.lines ?? []).map((line) => ({
      text: line.text ?? "",
      kind: line.kind ?? "",
      sourceId: line.sourceId ?? "",
      confidence: round(line.confidence, 4),
    }));
    return { profile: found.profile?.text ?? "", lines };
  },

  async forget_memory(lore, binding, args) {
    const memoryId = str(args["memory_id"]);
    const path = { memory_id: memoryId };
    const found = await unwrap(lore.GET("/v1/memories/{memory_id}", { params: { path } }));
    if (found.memory?.scope?.userId !== binding.userId) {
      // The organisation's shared memories and other users' are not this user's to forget; answered as
      // the gateway answers an id it does not hold, so an id reveals nothing.
      throw notFound("memory", memoryId);
    }
    await unwrap(lore.DELETE("/v1/memories/{memory_id}", { params: { path } }));
    return { forgotten: memoryId };
  },

  async forget_about(lore, binding, args) {
    const scope = { ...binding.scope, userId: binding.userId };
    const done = await unwrap(lore.POST("/v1/memories:forget", { body: { scope, about: str(args["about"]) } }));
    return {
      status: done.status ?? "",
      forgotten: (done.forgotten ?? []).map((item) => ({ id: item.id ?? "", type: item.type ?? "", text: item.text ?? "" })),
    };
  },

  async record_turn(lore, binding, args) {
    let sessionId = binding.sessionId;
    if (sessionId) {
      // Configuration, not the model, names it; still, a turn never lands in another user's conversation.
      const found = await unwrap(lore.GET("/v1/sessions/{session_id}", { params: { path: { session_id: sessionId } } }));
      if (found.session?.scope?.userId !== binding.userId) throw notFound("session", sessionId);
    } else {
      const query = compact({
        "scope.userId": binding.userId,
        "scope.agentId": binding.agentId,
        "scope.teamId": binding.teamId,
        status: "SESSION_STATUS_ACTIVE" as const,
        pageSize: 1,
      });
      const active = await unwrap(lore.GET("/v1/sessions", { params: { query } }));
      sessionId = active.sessions?.[0]?.id ?? "";
      if (!sessionId) {
        const body = { scope: binding.scope, metadata: { source: "tools" } };
        sessionId = (await unwrap(lore.POST("/v1/sessions", { body }))).session?.id ?? "";
      }
    }
    const path = { session_id: sessionId };
    const said = await unwrap(
      lore.POST("/v1/sessions/{session_id}/turns", {
        params: { path },
        body: { turn: { role: "TURN_ROLE_USER", content: str(args["user_message"]) } },
      }),
    );
    const replied = await unwrap(
      lore.POST("/v1/sessions/{session_id}/turns", {
        params: { path },
        body: { turn: { role: "TURN_ROLE_ASSISTANT", content: str(args["assistant_reply"]) } },
      }),
    );
    return { sessionId, userTurn: turnResult(said.turn), assistantTurn: turnResult(replied.turn) };
  },

  async search_beliefs(lore, binding, args) {
    const body = compact({
      agentId: binding.agentId,
      userId: binding.userId,
      teamId: binding.teamId,
      query: str(args["query"]),
      kinds: strings(args["kinds"]).map((kind) => enumName("OBSERVATION_KIND", kind)),
      k: (args["k"] as number | undefined) ?? 8,
    }) as Schemas["SearchObservationsRequest"];
    const found = await unwrap(lore.POST("/v1/observations:search", { body }));
    return {
      results: (found.results ?? []).map((hit) => ({ ...beliefResult(hit.observation), score: round(hit.score, 4) })),
    };
  },

  async observe(lore, binding, args) {
    // The model's quote, filed under the subject it is about (an entity by its name): a model holds no
    // turn or memory ids it could be trusted to cite.
    const quote = str(args["evidence"]);
    const subjectId = str(args["subject_id"]);
    const evidence: Schemas["EvidenceInput"][] = quote
      ? [{ stance: "EVIDENCE_STANCE_SUPPORT", sourceType: "SOURCE_TYPE_ENTITY", sourceId: subjectId, excerpt: quote }]
      : [];
    const candidate = compact({
      kind: enumName("OBSERVATION_KIND", str(args["kind"])),
      subjectType: enumName("SUBJECT_TYPE", str(args["subject_type"], "entity")),
      subjectId,
      slot: str(args["slot"]),
      summary: str(args["summary"]),
      detail: str(args["detail"]),
      evidence,
    }) as Schemas["ObservationCandidate"];
    const body = compact({
      agentId: binding.agentId,
      scope: compact({ userId: binding.userId, teamId: binding.teamId }),
      candidate,
    }) as Schemas["ObserveRequest"];
    const observed = await unwrap(lore.POST("/v1/observations:observe", { body }));
    return { belief: beliefResult(observed.observation), outcome: short(observed.outcome, "OBSERVE_OUTCOME_") };
  },
};
