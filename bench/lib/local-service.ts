// Starts the Worker under `wrangler dev` (the real workerd runtime, local D1 and Durable Objects)
// on a private state directory, for benchmarks. Localhost only; stopped by the caller.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PartnerCredentials } from "../../src/services/partners";
import { createPartner } from "../../scripts/partner";
import { tokenFor } from "../../scripts/lib/seed-demo";
import { wrangler, wranglerEnv } from "../../scripts/lib/wrangler";

export interface LocalService {
  base: string;
  credentials: PartnerCredentials;
  adminToken: string;
  stop(): Promise<void>;
}

export async function startLocalService(options: { port: number; vars?: Record<string, string> }): Promise<LocalService> {
  const dir = mkdtempSync(join(tmpdir(), "pathwise-bench-"));
  wrangler(["d1", "migrations", "apply", "DB", "--local", `--persist-to=${dir}`]);
  const credentials = await createPartner("Bench partner", "local", dir);
  const vars = { TOKEN_SIGNING_KEY: "bench-signing-key-0123456789abcdef", ...options.vars };
  const child: ChildProcess = spawn(
    "npx",
    [
      "--no-install",
      "wrangler",
      "dev",
      "--port",
      String(options.port),
      "--ip",
      "127.0.0.1",
      `--persist-to=${dir}`,
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    { env: wranglerEnv, stdio: ["ignore", "ignore", "inherit"], detached: true },
  );
  const base = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/v0/openapi.json`)).ok) break;
    } catch {
      /* starting */
    }
    if (Date.now() > deadline) throw new Error("wrangler dev did not start");
    await new Promise((r) => setTimeout(r, 300));
  }
  const adminToken = await tokenFor(base, credentials, credentials.admin_external_user_id);
  return {
    base,
    credentials,
    adminToken,
    async stop() {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** JSON call with the bench's token; throws on an unexpected status. */
export async function api(service: LocalService, method: string, path: string, body?: unknown, expect = [200, 201, 204]): Promise<any> {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i] as number;
}
