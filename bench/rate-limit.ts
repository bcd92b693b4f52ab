// Added latency of the rate limiter per request: the same endpoints timed with limits on and off.
//   npx tsx bench/rate-limit.ts [--requests 1000] [--token-requests 200] [--control]
// --control starts both servers with limits off (an A/A run): its "ratio" shows the noise floor.
// Runs two `wrangler dev` servers side by side (127.0.0.1, spare ports, each with its own copy of a
// throw-away local D1 with migrations applied and one partner), one per mode, and alternates
// requests between them (order flipped every request) so machine load and drift hit both alike:
//   off: RATE_LIMIT_MULTIPLIER=off (protect still makes its one TokenGate call: revocation)
//   on:  RATE_LIMIT_MULTIPLIER=1000 (every limit x1000, so the limiter does all its work but
//        never refuses: GET /v0/accounts/current 15000/min, token endpoint 60000/min per IP)
// Prints per mode the median/mean/p90 of N sequential requests and the on/off ratio.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createPartner } from "../scripts/partner";
import { wrangler, wranglerEnv } from "../scripts/lib/wrangler";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "1000" }, "token-requests": { type: "string", default: "200" }, control: { type: "boolean", default: false } },
});
const N = Math.min(10_000, Number(values.requests));
const NT = Math.min(2_000, Number(values["token-requests"]));
const SIGNING_KEY = `bench-${crypto.randomUUID()}${crypto.randomUUID()}`;

function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function startDev(persistTo: string, multiplier: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await sparePort();
  const child = spawn(
    "npx",
    ["--no-install", "wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistTo, "--show-interactive-dev-session=false",
      "--var", `RATE_LIMIT_MULTIPLIER:${multiplier}`, "--var", `TOKEN_SIGNING_KEY:${SIGNING_KEY}`],
    { env: wranglerEnv, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${log}`);
    try {
      await fetch(`${base}/v0`);
      return { base, child };
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  stopDev(child);
  throw new Error(`wrangler dev did not start within 60 s:\n${log}`);
}

function stopDev(child: ChildProcess) {
  if (child.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM"); // the process group we started (detached), nothing else
    } catch {
      /* already gone */
    }
  }
}

interface Stats { median: number; mean: number; p90: number }
const stats = (xs: number[]): Stats => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, mean: s.reduce((a, b) => a + b, 0) / s.length, p90: s[Math.floor(s.length * 0.9)]! };
};

type Mode = "off" | "on";

/** n pairs of requests, one per mode, order flipped each pair; returns the latencies per mode. */
async function timePairs(n: number, request: Record<Mode, () => Promise<Response>>): Promise<Record<Mode, number[]>> {
  const out: Record<Mode, number[]> = { off: [], on: [] };
  let failures = 0;
  for (let i = 0; i < n; i++) {
    if (i && i % 250 === 0) process.stderr.write(`  ${i}/${n}\n`);
    for (const mode of (i % 2 ? ["on", "off"] : ["off", "on"]) as Mode[]) {
      const t = performance.now();
      let res: Response;
      try {
        res = await request[mode]();
        await res.arrayBuffer();
      } catch (error) {
        // a dropped local connection under load: not a latency sample; give up after a few
        if (++failures > 20) throw new Error(`too many failed requests; last: ${String((error as Error).cause ?? error)}`);
        continue;
      }
      out[mode].push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${mode}: unexpected ${res.status} on request ${i + 1}`);
    }
  }
  return out;
}

async function main() {
  const dirs = { off: mkdtempSync(join(tmpdir(), "pathwise-bench-off-")), on: mkdtempSync(join(tmpdir(), "pathwise-bench-on-")) };
  const servers: ChildProcess[] = [];
  try {
    process.stderr.write(`local D1: applying migrations, creating a partner\n`);
    wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", dirs.off]);
    const partner = await createPartner("Bench partner", "local", dirs.off);
    cpSync(dirs.off, dirs.on, { recursive: true });
    const basic = `Basic ${btoa(`${partner.client_id}:${partner.client_secret}`)}`;
    const form = new URLSearchParams({ grant_type: "client_credentials", scope: partner.admin_external_user_id }).toString();
    const off = await startDev(dirs.off, "off");
    servers.push(off.child);
    const on = await startDev(dirs.on, values.control ? "off" : "1000");
    servers.push(on.child);
    const tokenReq = (base: string) => () =>
      fetch(`${base}/v0/oauth/token`, { method: "POST", headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" }, body: form });
    const tokenOf = async (base: string) => ((await (await tokenReq(base)()).json()) as { access_token: string }).access_token;
    const [offToken, onToken] = [await tokenOf(off.base), await tokenOf(on.base)];
    const current = (base: string, token: string) => () => fetch(`${base}/v0/accounts/current`, { headers: { Authorization: `Bearer ${token}` } });
    const currentReq = { off: current(off.base, offToken), on: current(on.base, onToken) };
    await timePairs(50, currentReq); // warm-up
    const samples = { current: await timePairs(N, currentReq), token: await timePairs(NT, { off: tokenReq(off.base), on: tokenReq(on.base) }) };
    report(samples);
  } finally {
    for (const child of servers) stopDev(child);
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
}

function report(samples: Record<"current" | "token", Record<Mode, number[]>>) {
  if (values.control) console.log("CONTROL RUN: both servers have limits off; the ratio is the noise floor");
  const fmt = (s: Stats) => `median ${s.median.toFixed(2)} ms, mean ${s.mean.toFixed(2)} ms, p90 ${s.p90.toFixed(2)} ms`;
  for (const [label, key] of [["GET /v0/accounts/current (token limit, 1 DO call either way)", "current"], ["POST /v0/oauth/token (IP limit: +1 DO call when on)", "token"]] as const) {
    const off = stats(samples[key].off);
    const on = stats(samples[key].on);
    console.log(`${label}: n=${samples[key].off.length} off, ${samples[key].on.length} on`);
    console.log(`  off: ${fmt(off)}`);
    console.log(`  on:  ${fmt(on)}`);
    console.log(`  ratio on/off: median ${(on.median / off.median).toFixed(3)}, mean ${(on.mean / off.mean).toFixed(3)}; added median ${(on.median - off.median).toFixed(2)} ms`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ""}` : error);
  process.exit(1);
});
