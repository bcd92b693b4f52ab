// Bounded work (issue 19; docs/security.md "Limits"):
//   npm run bench -- bounded-work [--learners 10000] [--history 500] [--events 20] [--goals 40]
//     [--runs 3] [--seconds 10] [--clients 1,2,4] [--only largest|fairness] [--quick]
// The Worker as deployed, in one workerd with its real bindings (the throughput harness:
// bench/throughput/build.ts, server.ts; rate limits off), and a world seeded through the public API
// at the limits (bench/bounded-work/world.ts). Then:
// 1. largest: every endpoint's largest allowed request (bench/bounded-work/requests.ts), alone on an
//    idle server, `runs` times: wall time, server CPU until the answer (workerd utime + stime) and
//    including the deferred work it caused (queues, alarms), and the answer's size;
// 2. fairness: the latency of GET /v0/accounts/current (one client, back to back) alone, and while
//    1, 2, 4 clients send the costliest predicted-score request back to back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { tokenFor } from "../scripts/lib/seed-demo";
import { MAX_ANSWER_BYTES } from "../src/schemas/limits";
import { type LargestRequest, largestRequests, predictedScoreShapes } from "./bounded-work/requests";
import { seedWorld } from "./bounded-work/world";
import { buildAll } from "./throughput/build";
import { cpuMs, loadAverage, settle } from "./throughput/cpu";
import { Api } from "./throughput/seed";
import { startServer } from "./throughput/server";
import { quantile, table } from "./throughput/stats";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    learners: { type: "string" },
    history: { type: "string" },
    events: { type: "string" },
    goals: { type: "string" },
    runs: { type: "string" },
    seconds: { type: "string" },
    clients: { type: "string" },
    only: { type: "string" },
  },
  allowPositionals: true,
});
const QUICK = values.quick;
const LEARNERS = Number(values.learners ?? (QUICK ? 1000 : 10_000));
const HISTORY = Math.min(LEARNERS, Number(values.history ?? 500));
const EVENTS = Number(values.events ?? 20);
const GOALS = Number(values.goals ?? (QUICK ? 5 : 40));
const RUNS = Number(values.runs ?? (QUICK ? 1 : 3));
const SECONDS = Number(values.seconds ?? (QUICK ? 3 : 10));
const CLIENTS = (values.clients ?? "1,2,4").split(",").map(Number);
const ONLY = values.only;

const log = (s: string) => process.stderr.write(`${s}\n`);
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes < 1e5 ? 4 : 2);

interface Sent {
  status: number;
  bytes: number;
  ms: number;
}

async function send(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const start = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.arrayBuffer();
  const ms = performance.now() - start;
  if (res.status >= 400) log(`    ${method} ${path.slice(0, 80)} -> ${res.status} ${new TextDecoder().decode(answer.slice(0, 400))}`);
  return { status: res.status, bytes: answer.byteLength, ms };
}

interface Measured {
  request: LargestRequest;
  statuses: number[];
  bytes: number;
  ms: number[];
  cpu: number[];
  cpuWithDeferred: number[];
}

/** Each largest request `runs` times on an idle server: wall time, CPU until answered and until idle again, answer size. */
async function measureLargest(base: string, token: string, requests: LargestRequest[], pids: number[]): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const request of requests) {
    const m: Measured = { request, statuses: [], bytes: 0, ms: [], cpu: [], cpuWithDeferred: [] };
    for (let run = 0; run < (request.once ? 1 : RUNS); run++) {
      await settle(pids, 1000, 60_000);
      const { path, body } = request.build(run);
      const before = cpuMs(pids);
      const r = await send(base, token, request.method, path, body, request.headers);
      const answered = cpuMs(pids);
      await settle(pids, 1000, 60_000);
      m.statuses.push(r.status);
      m.bytes = Math.max(m.bytes, r.bytes);
      m.ms.push(r.ms);
      m.cpu.push(answered - before);
      m.cpuWithDeferred.push(cpuMs(pids) - before);
    }
    log(`  ${request.endpoint} [${request.shape}]: ${m.statuses.join(",")} ${Math.max(...m.ms).toFixed(0)} ms ${mb(m.bytes)} MB [${elapsed()}]`);
    out.push(m);
  }
  return out;
}

function largestTable(rows: Measured[]): string {
  const max = (xs: number[]) => Math.max(...xs);
  return table(
    ["endpoint", "largest allowed request", "status", "wall ms (max)", "CPU ms until answered (max)", "CPU ms incl. deferred (max)", "answer MB"],
    rows.map((m) => [
      m.request.endpoint,
      m.request.shape,
      [...new Set(m.statuses)].join(","),
      max(m.ms).toFixed(0),
      max(m.cpu).toFixed(0),
      max(m.cpuWithDeferred).toFixed(0),
      mb(m.bytes),
    ]),
  );
}

interface Probe {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

/** GET /v0/accounts/current back to back for `seconds`: its latency quantiles. */
async function probe(base: string, token: string, seconds: number): Promise<Probe> {
  const latencies: number[] = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const r = await send(base, token, "GET", "/v0/accounts/current");
    if (r.status !== 200) throw new Error(`accounts/current answered ${r.status}`);
    latencies.push(r.ms);
  }
  latencies.sort((a, b) => a - b);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies[latencies.length - 1] ?? Number.NaN, n: latencies.length };
}

/** The probe alone, then while `clients` clients send `heavy` back to back. */
async function fairness(base: string, token: string, heavy: { shape: string; body: unknown }, pids: number[]): Promise<string> {
  await settle(pids, 1000, 60_000);
  const rows: string[][] = [];
  const alone = await probe(base, token, SECONDS);
  rows.push(["0 (alone)", alone.p50.toFixed(1), alone.p99.toFixed(1), alone.max.toFixed(1), String(alone.n), "–", "–"]);
  log(`  alone: p50 ${alone.p50.toFixed(1)} ms, p99 ${alone.p99.toFixed(1)} ms [${elapsed()}]`);
  for (const clients of CLIENTS) {
    await settle(pids, 1000, 60_000);
    let stop = false;
    const heavyMs: number[] = [];
    const loops = Array.from({ length: clients }, async () => {
      while (!stop) {
        const r = await send(base, token, "POST", "/v0/accounts/metrics/predicted-score", heavy.body);
        if (r.status !== 200) throw new Error(`predicted score answered ${r.status}`);
        heavyMs.push(r.ms);
      }
    });
    // the heavy requests are under way before the probe starts
    await new Promise((r) => setTimeout(r, 500));
    const during = await probe(base, token, SECONDS);
    stop = true;
    await Promise.all(loops);
    heavyMs.sort((a, b) => a - b);
    rows.push([
      String(clients),
      during.p50.toFixed(1),
      during.p99.toFixed(1),
      during.max.toFixed(1),
      String(during.n),
      String(heavyMs.length),
      quantile(heavyMs, 0.5).toFixed(0),
    ]);
    log(
      `  ${clients} heavy clients: p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms, heavy p50 ${quantile(heavyMs, 0.5).toFixed(0)} ms [${elapsed()}]`,
    );
  }
  return `GET /v0/accounts/current (one client, back to back, ${SECONDS} s) while clients send, back to back: ${heavy.shape}\n\n${table(
    ["predicted-score clients", "accounts/current p50 ms", "p99 ms", "max ms", "probes", "predicted-score requests", "their p50 ms"],
    rows,
  )}`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "pathwise-bounded-"));
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    log("building the deploy bundle...");
    const bundles = await buildAll(join(dir, "build"));
    server = await startServer(bundles, join(dir, "state"));
    const pids = server.pids;
    const api = new Api(server.app);
    api.token = await tokenFor(server.app, server.credentials, server.credentials.admin_external_user_id);
    log(`seeding: ${LEARNERS} learners, ${HISTORY} with ${EVENTS} events, ${GOALS} goals [${elapsed()}]`);
    const w = await seedWorld(api, { learners: LEARNERS, withHistory: HISTORY, events: EVENTS, goals: GOALS, concurrency: 16 }, log);
    const idle = await settle(pids, 3000, 300_000);
    log(`seeded (queues drained: ${idle.quiet}) [${elapsed()}]`);
    const [l1, l5, l15] = loadAverage();
    console.log(`\nBounded work in workerd (one local workerd, rate limits off); ${LEARNERS} learners, ${GOALS} goals; load average ${l1} / ${l5} / ${l15}\n`);
    let heavy = predictedScoreShapes(w)[1] as { shape: string; body: unknown };
    const requests = largestRequests(w);
    const rows: Measured[] = [];
    if (ONLY !== "fairness") {
      rows.push(
        ...(await measureLargest(
          server.app,
          api.token,
          requests.filter((r) => !r.once),
          pids,
        )),
      );
      const scores = rows.filter((m) => m.request.endpoint.endsWith("predicted-score"));
      const costliest = [...scores].sort((a, b) => Math.max(...b.cpu) - Math.max(...a.cpu))[0];
      heavy = predictedScoreShapes(w).find((s) => s.shape === costliest?.request.shape) ?? heavy;
    }
    // before the requests that remove the world (deleting the instance)
    const fair = ONLY !== "largest" ? await fairness(server.app, api.token, heavy, pids) : undefined;
    if (ONLY !== "fairness") {
      rows.push(
        ...(await measureLargest(
          server.app,
          api.token,
          requests.filter((r) => r.once),
          pids,
        )),
      );
      console.log(largestTable(rows));
      const over = rows.filter((m) => m.bytes > MAX_ANSWER_BYTES);
      console.log(over.length ? `\nANSWERS OVER 10 MB: ${over.map((m) => m.request.endpoint).join(", ")}` : "\nevery answer at most 10 MB");
    }
    if (fair) console.log(`\n${fair}`);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
