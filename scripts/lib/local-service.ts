// Starts the Worker under `wrangler dev` (the real workerd runtime, local D1, Durable Objects, Queues
// and static assets) on a private state directory, for benchmarks and the tests that need a served
// Worker (static assets, the browser). Localhost only; stopped (or restarted) by the caller.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PartnerCredentials } from "../../src/services/partners";
import { createPartner } from "../partner";
import { tokenFor } from "./seed-demo";
import { wrangler, wranglerEnv } from "./wrangler";

export interface LocalService {
  base: string;
  port: number;
  credentials: PartnerCredentials;
  /** a token of the partner admin (renewed by restart) */
  adminToken: string;
  /** Stops the server and starts it again on the same port and state (fresh isolates, same D1 and DO storage). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalServiceOptions {
  /** default: a spare port on 127.0.0.1 */
  port?: number;
  /** `--var NAME:VALUE` for wrangler dev; TOKEN_SIGNING_KEY defaults to a fixed bench key */
  vars?: Record<string, string>;
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
export function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/**
 * A throw-away local service: a private state directory with the migrations applied and one
 * partner ("Bench partner"), and `wrangler dev` on it. Several may run side by side.
 */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const dir = mkdtempSync(join(tmpdir(), "pathwise-bench-"));
  let child: ChildProcess | undefined;
  try {
    wrangler(["d1", "migrations", "apply", "DB", "--local", `--persist-to=${dir}`]);
    const credentials = await createPartner("Bench partner", "local", dir);
    const port = options.port ?? (await sparePort());
    const vars = { TOKEN_SIGNING_KEY: "bench-signing-key-0123456789abcdef", ...options.vars };
    const base = `http://127.0.0.1:${port}`;
    child = await startDev(dir, port, vars);
    const service: LocalService = {
      base,
      port,
      credentials,
      adminToken: await tokenFor(base, credentials, credentials.admin_external_user_id),
      async restart() {
        if (child) await stopDev(child);
        await portClosed(base);
        child = await startDev(dir, port, vars);
        service.adminToken = await tokenFor(base, credentials, credentials.admin_external_user_id);
      },
      async stop() {
        if (child) await stopDev(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return service;
  } catch (error) {
    if (child) await stopDev(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `wrangler dev` on the state directory, resolved once it answers; fails with its log if it exits or does not start in 90 s. */
async function startDev(dir: string, port: number, vars: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(
    "npx",
    [
      "--no-install",
      "wrangler",
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      `--persist-to=${dir}`,
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    { env: wranglerEnv, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout?.on("data", (d) => (log = (log + d).slice(-20_000)));
  child.stderr?.on("data", (d) => (log = (log + d).slice(-20_000)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log}`);
    try {
      if ((await fetch(`${base}/v0/openapi.json`)).ok) return child;
    } catch {
      /* starting */
    }
    if (Date.now() > deadline) {
      await stopDev(child);
      throw new Error(`wrangler dev did not start within 90 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Waits (up to 15 s) until nothing answers on base any more, so a restart never talks to the old server. */
async function portClosed(base: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      await fetch(`${base}/v0/openapi.json`, { signal: AbortSignal.timeout(1_000) });
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${base} still answers after the server was stopped`);
}

/** Stops the process group we started (detached), nothing else, and waits for it to exit. */
async function stopDev(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return; /* already gone */
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
}
