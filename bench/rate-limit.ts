// Added latency of the rate limiter per request: the same endpoints timed with limits on and off.
//   npx tsx bench/rate-limit.ts [--requests 1000] [--token-requests 90] [--control]
// --control starts both servers with limits off (an A/A run): its "ratio" shows the noise floor.
// Runs two `wrangler dev` servers side by side (scripts/lib/local-service.ts: 127.0.0.1, spare ports,
// each with its own throw-away local D1 with migrations applied and one partner), one per mode, and alternates
// requests between them (order flipped every request) so machine load and drift hit both alike:
//   off: RATE_LIMIT_MULTIPLIER=off (protect still makes its one TokenGate call: revocation)
//   on:  RATE_LIMIT_MULTIPLIER=1000 (every limit x1000, so the limiter does all its work but
//        never refuses: GET /v0/accounts/current 15000/min, token endpoint 60000/min per IP)
// Prints per mode the median/mean/p90 of N sequential requests and the on/off ratio.
import { parseArgs } from "node:util";
import { type LocalService, startLocalService } from "../scripts/lib/local-service";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "1000" }, "token-requests": { type: "string", default: "90" }, control: { type: "boolean", default: false } },
});
const N = Math.min(10_000, Number(values.requests));
// An account holds at most 100 live access tokens (src/config.ts), and each server's admin gets one at start.
const NT = Math.min(90, Number(values["token-requests"]));
const SIGNING_KEY = `bench-${crypto.randomUUID()}${crypto.randomUUID()}`;

interface Stats {
  median: number;
  mean: number;
  p90: number;
}
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
  const servers: LocalService[] = [];
  try {
    process.stderr.write(`local D1 x2: applying migrations, creating a partner, starting wrangler dev\n`);
    const start = (multiplier: string) =>
      startLocalService({ vars: { RATE_LIMIT_MULTIPLIER: multiplier, TOKEN_SIGNING_KEY: SIGNING_KEY } }).then((s) => {
        servers.push(s);
        return s;
      });
    const off = await start("off");
    const on = await start(values.control ? "off" : "1000");
    const tokenReq = (s: LocalService) => {
      const basic = `Basic ${btoa(`${s.credentials.client_id}:${s.credentials.client_secret}`)}`;
      const form = new URLSearchParams({ grant_type: "client_credentials", scope: s.credentials.admin_external_user_id }).toString();
      return () =>
        fetch(`${s.base}/v0/oauth/token`, {
          method: "POST",
          headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" },
          body: form,
        });
    };
    const current = (s: LocalService) => () => fetch(`${s.base}/v0/accounts/current`, { headers: { Authorization: `Bearer ${s.adminToken}` } });
    const currentReq = { off: current(off), on: current(on) };
    await timePairs(50, currentReq); // warm-up
    const samples = { current: await timePairs(N, currentReq), token: await timePairs(NT, { off: tokenReq(off), on: tokenReq(on) }) };
    report(samples);
  } finally {
    for (const s of servers) await s.stop();
  }
}

function report(samples: Record<"current" | "token", Record<Mode, number[]>>) {
  if (values.control) console.log("CONTROL RUN: both servers have limits off; the ratio is the noise floor");
  const fmt = (s: Stats) => `median ${s.median.toFixed(2)} ms, mean ${s.mean.toFixed(2)} ms, p90 ${s.p90.toFixed(2)} ms`;
  for (const [label, key] of [
    ["GET /v0/accounts/current (token limit, 1 DO call either way)", "current"],
    ["POST /v0/oauth/token (IP limit: +1 DO call when on)", "token"],
  ] as const) {
    const off = stats(samples[key].off);
    const on = stats(samples[key].on);
    console.log(`${label}: n=${samples[key].off.length} off, ${samples[key].on.length} on`);
    console.log(`  off: ${fmt(off)}`);
    console.log(`  on:  ${fmt(on)}`);
    console.log(
      `  ratio on/off: median ${(on.median / off.median).toFixed(3)}, mean ${(on.mean / off.mean).toFixed(3)}; added median ${(on.median - off.median).toFixed(2)} ms`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ""}` : error);
  process.exit(1);
});
