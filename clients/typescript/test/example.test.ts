/** The example runs against the gateway (without a model key it stops before the model's turn). */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

import { setting } from "./stack.js";

test("examples/quickstart remembers, searches and primes", async () => {
  const script = fileURLToPath(new URL("../examples/quickstart.js", import.meta.url));
  const env = { PATH: process.env["PATH"] ?? "", LORE_URL: setting("LORE_URL"), LORE_API_KEY: setting("LORE_KEY") };
  const { stdout } = await promisify(execFile)(process.execPath, [script], { env, timeout: 60_000 });
  assert.match(stdout, /^remembered [0-9a-f-]{36}$/m);
  assert.match(stdout, /Lena moved to Porto/);
});
