/**
 * `@lore/client`: Lore's REST gateway from TypeScript (Node 18+, Deno, Bun, edge runtimes).
 *
 * - `createLoreClient` — every operation of the OpenAPI document, typed (openapi-fetch over `schema.ts`),
 *   with `lore_client`'s retries; `unwrap` gives an answer or throws `LoreApiError`.
 * - Tools for a model (`aiSdkTools`, `openaiTools`, `anthropicTools`, `resolveToolCall`), as `lore_client.tools`.
 */
export { createLoreClient, pages, retryingFetch, unwrap, RETRIED_STATUSES } from "./client.js";
export type { FetchResult, LoreClient, LoreClientOptions } from "./client.js";
export { LoreApiError, parseRetryAfter } from "./errors.js";
export type { LoreApiErrorFields } from "./errors.js";
export type { components, operations, paths } from "./schema.js";
export { CATALOGUE } from "./catalogue.js";
export {
  ToolArgumentError,
  ToolBinding,
  ToolCallError,
  UnknownToolError,
  TOOL_NAMES,
  aiSdkTools,
  anthropicTools,
  checkArguments,
  errorResult,
  executeTool,
  openaiTools,
  parseToolCall,
  resolveToolCall,
} from "./tools.js";
export type {
  AiSdkTool,
  AnthropicTool,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ToolName,
  ToolOutcome,
  ToolParameters,
} from "./tools.js";
