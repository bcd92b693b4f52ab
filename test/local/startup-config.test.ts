import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptions } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { wrangler } from "../../scripts/lib/wrangler";

/**
 * docs/security.md "Controls" (a bad deployment setting): a bad configuration value fails the
 * deploy check and startup, never a request. The Worker as deployed (`wrangler deploy --dry-run`'s
 * bundle) in workerd with wrangler.toml's bindings: with a valid configuration it starts and
 * answers; with a bad value it does not start at all (workerd reports the Worker's ConfigError
 * naming the setting), so no request is ever answered 500 for it. (The deploy check itself:
 * test/unit/security/check-config.test.ts.)
 */

const KEY = "startup-test-signing-key-0123456789abcdef0123456789";
let dir: string;
let bundle: string;
let options: V4WorkerOptions;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pathwise-startup-"));
  wrangler(["deploy", "--dry-run", "--outdir", join(dir, "build")]);
  bundle = join(dir, "build", "index.js");
  const { workerOptions } = unstable_getMiniflareWorkerOptions("wrangler.toml");
  const { assets: _assets, modulesRules: _rules, ...rest } = workerOptions;
  options = rest as V4WorkerOptions;
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the bundle with these vars over wrangler.toml's; resolves with GET /v0/openapi.json's status, or rejects as workerd fails to start. */
async function start(vars: Record<string, string>): Promise<number> {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: join(dir, `state-${Math.random().toString(36).slice(2)}`),
      workers: [
        {
          ...options,
          name: "pathwise",
          modules: true,
          scriptPath: bundle,
          modulesRoot: dirname(bundle),
          bindings: { ...(options.bindings as Record<string, string>), TOKEN_SIGNING_KEY: KEY, ...vars },
        },
      ] as V4WorkerOptions[],
    }),
  );
  try {
    await mf.ready;
    return (await mf.dispatchFetch("http://localhost/v0/openapi.json")).status;
  } finally {
    await mf.dispose().catch(() => undefined);
  }
}

describe("configuration errors stop the Worker at startup", () => {
  it("a valid configuration starts and answers", { timeout: 60_000 }, async () => {
    expect(await start({ CORS_ALLOWED_ORIGINS: "https://dashboard.example.edu" })).toBe(200);
  });

  it.each([
    ["CORS_ALLOWED_ORIGINS", "*"],
    ["CORS_ALLOWED_ORIGINS", "https://a.example.edu, *"],
    ["TOKEN_SIGNING_KEY", "short"],
    ["RATE_LIMIT_MULTIPLIER", "fast"],
  ])("%s=%s: workerd refuses to start the Worker, naming the setting", { timeout: 60_000 }, async (name, value) => {
    await expect(start({ [name]: value })).rejects.toThrow(new RegExp(`Invalid configuration: .*${name}`));
  });
});
