// Added latency of the rate limiter per request: the same endpoints timed with limits on and off.
//   npx tsx bench/rate-limit.ts [--requests 1000] [--token-requests 200] [--rounds 2]
// Runs `wrangler dev` locally (127.0.0.1, a spare port, a throw-away local D1 with migrations
// applied), once per mode and round, alternating off/on so drift hits both modes alike:
//   off: RATE_LIMIT_MULTIPLIER=off (protect still makes its one TokenGate call: revocation)
//   on:  RATE_LIMIT_MULTIPLIER=1000 (every limit x1000, so the limiter does all its work but
//        never refuses: GET /v0/accounts/current 15000/min, token endpoint 60000/min per IP)
// Prints per mode the median/mean/p90 of N sequential requests and the on/off ratio.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createPartner } from "../scripts/partner";
import { wrangler, wranglerEnv } from "../scripts/lib/wrangler";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "1000" }, "token-requests": { type: "string", default: "200" }, rounds: { type: "string", default: "2" } },
});
const N = Math.min(20_000, Number(values.requests));
const NT = Math.min(5_000, Number(values["token-requests"]));
const ROUNDS = Math.min(10, Number(values.rounds));
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

async function time(n: number, request: () => Promise<Response>, expected: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await request();
    await res.arrayBuffer();
    out.push(performance.now() - t);
    if (res.status !== expected) throw new Error(`unexpected ${res.status} on request ${i + 1}`);
  }
  return out;
}

async function main() {
  const persistTo = mkdtempSync(join(tmpdir(), "pathwise-bench-"));
  const samples: Record<"off" | "on", { current: number[]; token: number[] }> = { off: { current: [], token: [] }, on: { current: [], token: [] } };
  try {
    process.stderr.write(`local D1 in ${persistTo}: applying migrations, creating a partner\n`);
    wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo]);
    const partner = await createPartner("Bench partner", "local", persistTo);
    const basic = `Basic ${btoa(`${partner.client_id}:${partner.client_secret}`)}`;
    const form = new URLSearchParams({ grant_type: "client_credentials", scope: partner.admin_external_user_id }).toString();
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ["off", "on"] as const) {
        const { base, child } = await startDev(persistTo, mode === "off" ? "off" : "1000");
        try {
          const tokenReq = () =>
            fetch(`${base}/v0/oauth/token`, { method: "POST", headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" }, body: form });
          const tokenRes = await tokenReq();
          const { access_token } = (await tokenRes.json()) as { access_token: string };
          const current = () => fetch(`${base}/v0/accounts/current`, { headers: { Authorization: `Bearer ${access_token}` } });
          await time(50, current, 200); // warm-up
          samples[mode].current.push(...(await time(N, current, 200)));
          samples[mode].token.push(...(await time(NT, tokenReq, 200)));
          process.stderr.write(`round ${round + 1} ${mode}: done\n`);
        } finally {
          stopDev(child);
        }
      }
    }
  } finally {
    rmSync(persistTo, { recursive: true, force: true });
  }
  const fmt = (s: Stats) => `median ${s.median.toFixed(2)} ms, mean ${s.mean.toFixed(2)} ms, p90 ${s.p90.toFixed(2)} ms`;
  for (const [label, key] of [["GET /v0/accounts/current (token limit, 1 DO call either way)", "current"], ["POST /v0/oauth/token (IP limit: +1 DO call when on)", "token"]] as const) {
    const off = stats(samples.off[key]);
    const on = stats(samples.on[key]);
    console.log(`${label}: n=${samples.on[key].length} per mode`);
    console.log(`  off: ${fmt(off)}`);
    console.log(`  on:  ${fmt(on)}`);
    console.log(`  ratio on/off: median ${(on.median / off.median).toFixed(3)}, mean ${(on.mean / off.mean).toFixed(3)}; added median ${(on.median - off.median).toFixed(2)} ms`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
