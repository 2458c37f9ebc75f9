/**
 * What the tests share: the gateway they run against and its keys, given in the environment by
 * tests/integration/typescript_client/test_typescript_client.py (which serves a real gateway), and
 * polling for background work.
 */
import { createLoreClient, type LoreClient, type LoreClientOptions } from "@lore/client";

export function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests through scripts/test (pytest)`);
  return value;
}

export const URL_ = () => setting("LORE_URL");

/** A client of the gateway as org A's org-wide key (every scope but operator), or `key`. */
export function client(key = setting("LORE_KEY"), options: LoreClientOptions = {}): LoreClient {
  return createLoreClient({ baseUrl: setting("LORE_URL"), apiKey: key, timeoutMs: 60_000, ...options });
}

/** A name no other test uses. */
export function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The first truthy answer of `probe`, polled until `timeoutMs` has passed. */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, what = "background work"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not finish within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
