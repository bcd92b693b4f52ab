// Throughput in workerd (issue 13; docs/performance.md):
//   npm run bench -- throughput [--quick] [--seconds 10] [--rounds 3] [--series-seconds 5] [--no-series]
//     [--learners 1000] [--prior-events 10,1000,100000] [--only KEY,...] [--profile KEY] [--app-root DIR]
//   --profile KEY: a CPU profile of one scenario (workerd's inspector) instead of the tables; KEY idle:
//     of the server while no request comes after the seeding, for --idle-minutes (2 by default);
//     --profile-out DIR also writes each raw profile there (KEY.cpuprofile, for Chrome DevTools);
//   --rate N: offer N requests/s per round instead of as many as are answered (CPU per request of two
//     versions compared at the same load, on a machine whose other work moves the throughput);
//   --app-root DIR: measure the Worker of another checkout (e.g. a worktree of main) with this harness;
//   --idle-minutes N: after the seeding, the server's CPU while no request comes, per 30 s for N minutes
//     (what the registrations' alarms do in the background: docs/performance.md "Re-reading checks").
// Builds the Worker as it deploys (`wrangler deploy --dry-run`), runs it in one workerd through
// Miniflare's API (no `wrangler dev`), each Worker on its own socket, with its real bindings (D1
// with the migrations, Durable Objects on SQLite, both queues and their consumers, the [vars],
// rate limits off) next to a hello-world Hono Worker and the storage floor (bench/throughput/workers).
// Seeds a world through the public API, then drives each scenario with autocannon (16 connections,
// warm-up discarded, rounds alternated between scenarios, the server idle before each), and prints
// req/s, p50, p99, server CPU ms per request (workerd's utime + stime), the ratios to hello-world and
// to the scenario's floor, the scaling series and the budget lines.
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sparePort } from "../scripts/lib/local-service";
import { tokenFor } from "../scripts/lib/seed-demo";
import { signAccessToken, verifyAccessToken } from "../src/auth/access-token";
import { shardIndex } from "../src/rate-limits/token-shards";
import { buildAll } from "./throughput/build";
import { type ClassStart, classStart, classStartErrors, classStartRow, seedClassStart } from "./throughput/class-start";
import { cpuMs, loadAverage, settle, sleep } from "./throughput/cpu";
import { type RoundResult, round, type Traffic } from "./throughput/load";
import { openProfiler, summarizeProfile } from "./throughput/profile";
import { type RecommendationCost, recommendationCost } from "./throughput/recommendation-cost";
import * as S from "./throughput/scenarios";
import { Api, fillHistory, type Klass, postGraph, sampleGraph, seedClass, synthetic } from "./throughput/seed";
import { SIGNING_KEY, startServer } from "./throughput/server";
import { atLeast, atMost, type BudgetLine, budgetLine, fmt, ratio, type Summary, summarize, table } from "./throughput/stats";

/** Issue 13's measured ratios to hello-world (its table), printed next to today's. */
const ISSUE_13_RATIOS: Record<string, number> = { accounts: 0.067, graded: 0.02, batch: 0.016, token: 0.018 };

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    seconds: { type: "string" },
    rounds: { type: "string" },
    "series-seconds": { type: "string" },
    "no-series": { type: "boolean", default: false },
    learners: { type: "string" },
    "prior-events": { type: "string" },
    only: { type: "string" },
    profile: { type: "string" },
    "profile-out": { type: "string" },
    rate: { type: "string" },
    "app-root": { type: "string" },
    "class-start-learners": { type: "string" },
    "idle-minutes": { type: "string" },
  },
  allowPositionals: true,
});
const QUICK = values.quick;
const SECONDS = Number(values.seconds ?? (QUICK ? 3 : 10));
const ROUNDS = Number(values.rounds ?? (QUICK ? 1 : 3));
const SERIES_SECONDS = Number(values["series-seconds"] ?? (QUICK ? 2 : 5));
const WARMUP_SECONDS = QUICK ? 1 : 2;
const LEARNERS = Number(values.learners ?? 1000);
const CLASS_START_LEARNERS = Number(values["class-start-learners"] ?? 200);
/** counted cycles of the recommendation's own CPU per graph size (bench/throughput/recommendation-cost.ts) */
const REC_CYCLES = QUICK ? 1 : 3;
const PRIOR = (values["prior-events"] ?? (QUICK ? "10,1000,10000" : "10,1000,100000")).split(",").map(Number);
const QUIET_MS = 1500;
const RATE = values.rate ? Number(values.rate) : undefined;

const log = (s: string) => process.stderr.write(`${s}\n`);
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;

interface Scenario {
  key: string;
  label: string;
  traffic: () => Traffic;
  /** which request of the sequence the latency columns report (the recommendation of a pair) */
  report?: number;
}

const results = new Map<string, RoundResult[]>();

/** Each scenario's latest throughput: a counted round asks for about `seconds` of it. */
const rate = new Map<string, number>();

/** A warm-up (timed, discarded) or a counted round of about `seconds` (kept). */
async function runRound(s: Scenario, seconds: number, pids: number[], keep = true): Promise<void> {
  const amount = keep ? Math.max(2 * S.CONNECTIONS, Math.round((rate.get(s.key) ?? 0) * seconds)) : undefined;
  const r = await round(s.traffic(), { connections: S.CONNECTIONS, seconds, amount, pids, quietMs: QUIET_MS, rate: RATE });
  if (r.requests > 0) rate.set(s.key, r.requests / r.durationS);
  const bad = Object.entries(r.statuses).filter(([code]) => Number(code) < 200 || Number(code) >= 300);
  if (bad.length || r.errors || (keep && r.requests === 0)) {
    throw new Error(
      `${s.label}: ${r.requests} responses, non-2xx ${JSON.stringify(Object.fromEntries(bad))}, connection errors ${r.errors}: figures would be meaningless`,
    );
  }
  if (keep) results.set(s.key, [...(results.get(s.key) ?? []), r]);
  log(
    `  ${keep ? "" : "(warm-up) "}${s.label}: ${(r.requests / r.durationS).toFixed(0)} req/s, cpu ${(r.cpuMs / r.requests).toFixed(2)} ms/req (tail ${r.tailCpuMs} ms) [${elapsed()}]`,
  );
}

/** Rounds alternated between scenarios, a discarded warm-up of each first. */
async function runAll(scenarios: Scenario[], rounds: number, seconds: number, pids: number[]): Promise<void> {
  for (const s of scenarios) await runRound(s, WARMUP_SECONDS, pids, false);
  for (let r = 0; r < rounds; r++) for (const s of scenarios) await runRound(s, seconds, pids);
}

function summary(key: string, report?: number): Summary {
  const rounds = results.get(key) ?? [];
  return summarize(
    rounds.map((r) => ({
      requests: r.requests,
      durationS: r.durationS,
      latencies: report === undefined ? r.latencies.flat() : (r.latencies[report] ?? []),
      cpuMs: r.cpuMs,
    })),
  );
}

function machine(): string {
  const cpu = execSync("grep -m1 'model name' /proc/cpuinfo || true", { encoding: "utf8" }).split(":")[1]?.trim() ?? "unknown CPU";
  const [l1, l5, l15] = loadAverage();
  return `${cpu}, ${execSync("nproc", { encoding: "utf8" }).trim()} cores; load average ${l1} / ${l5} / ${l15}; Node ${process.version}`;
}

async function main() {
  log(`machine: ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), "pathwise-throughput-"));
  const out = (s = "") => console.log(s);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    log("building the deploy bundle and the reference Workers...");
    const appRoot = values["app-root"] ? resolve(values["app-root"]) : undefined;
    const bundles = await buildAll(join(dir, "build"), appRoot);
    // A spare port, not a fixed one: two profiled runs side by side would otherwise profile one workerd.
    const inspectorPort = values.profile ? await sparePort() : undefined;
    server = await startServer(bundles, join(dir, "state"), { inspectorPort, appRoot });
    const pids = server.pids;
    if (pids.length === 0) throw new Error("no workerd process found under this process");
    log(`workerd pids ${pids.join(", ")}; seeding [${elapsed()}]`);

    const api = new Api(server.app);
    api.token = await tokenFor(server.app, server.credentials, server.credentials.admin_external_user_id);
    const seedStart = Date.now();
    const sampleDoc = sampleGraph();
    const sampleGraphInfo = await postGraph(api, sampleDoc, ["lref-two-step-eq"]);
    const bigDoc = synthetic(2000);
    const bigInfo = await postGraph(
      api,
      bigDoc,
      bigDoc.learning_objectives.slice(-3).map((o) => o.id),
    );
    const sample = await seedClass(api, sampleGraphInfo, "Sample class", LEARNERS, 20, 16);
    log(`  sample class: ${LEARNERS} learners x 20 events [${elapsed()}]`);
    const big = await seedClass(api, bigInfo, "Big graph class", Math.min(200, LEARNERS), 20, 16);
    log(`  2,000-objective class: ${Math.min(200, LEARNERS)} learners x 20 events [${elapsed()}]`);
    const series: Record<string, Klass> = {};
    const priorRegs: string[] = [];
    if (!values["no-series"]) {
      for (const n of [50, 500]) {
        const doc = synthetic(n);
        const info = await postGraph(
          api,
          doc,
          doc.learning_objectives.slice(-3).map((o) => o.id),
        );
        series[n] = await seedClass(api, info, `Graph ${n} class`, 50, 20, 16);
      }
      const history = await seedClass(api, sampleGraphInfo, "History class", PRIOR.length, 0, 1);
      for (const [i, n] of PRIOR.entries()) {
        await fillHistory(api, history.registrations[i] as string, sampleGraphInfo, n, Date.now() - 3_600_000, 1000 + i);
        log(`  registration with ${n} prior events [${elapsed()}]`);
      }
      priorRegs.push(...history.registrations);
      series.history = history;
    }
    const only = values.only?.split(",");
    const classStartWorld = !only || only.includes("class-start") ? await seedClassStart(api, CLASS_START_LEARNERS) : undefined;
    const idle = await settle(pids, 3000, 120_000);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    log(`seeded in ${seedSeconds.toFixed(0)} s (queues drained: ${idle.quiet}) [${elapsed()}]`);
    if (values.profile === "idle") return await profileIdle(inspectorPort as number, Number(values["idle-minutes"] ?? 2), values["profile-out"]);
    if (values["idle-minutes"]) out(await idleCpu(pids, Number(values["idle-minutes"])));
    const graphUuid = (await api.call("GET", `/v0/graphs/${sampleGraphInfo.label}`)).id as string;

    const w: S.World = { app: server.app, hello: server.hello, floor: server.floor, token: api.token, credentials: server.credentials, sample, big };
    const main: Scenario[] = [
      { key: "hello", label: "hello-world Hono", traffic: () => S.helloWorld(w) },
      { key: "accounts", label: "GET /v0/accounts/current", traffic: () => S.accountsCurrent(w) },
      { key: "floor-accounts", label: "floor: accounts/current", traffic: () => S.floorAccount(w) },
      { key: "graded", label: "POST graded-events (200 registrations)", traffic: () => S.graded(w, sample) },
      { key: "floor-event", label: "floor: event", traffic: () => S.floorEvent(w, sample) },
      { key: "batch", label: "POST batch-events, 50 events", traffic: () => S.batch(w, sample) },
      { key: "floor-batch", label: "floor: batch of 50", traffic: () => S.floorBatch(w, sample) },
      { key: "rec-sample", label: "answer + recommendation, sample graph", traffic: () => S.answerThenRecommend(w, sample) },
      { key: "rec-big", label: "answer + recommendation, 2,000 objectives", traffic: () => S.answerThenRecommend(w, big) },
      { key: "floor-rec", label: "floor: answer + recommendation", traffic: () => S.floorAnswerThenRecommend(w, sample) },
      { key: "status", label: "status and progress, page of 100", traffic: () => S.statusPage(w, sample, 100) },
      { key: "floor-status", label: "floor: status page of 100", traffic: () => S.floorStatus(w, sample, 100) },
      { key: "score", label: "predicted score, 100 accounts x 20 objectives", traffic: () => S.predictedScore(w, sample, 100, 20) },
      { key: "floor-score", label: "floor: predicted score of 100", traffic: () => S.floorScore(w, sample, graphUuid, 100) },
      { key: "token", label: "POST /v0/oauth/token", traffic: () => S.tokenIssue(w, sample) },
      { key: "floor-token", label: "floor: token issue", traffic: () => S.floorToken(w, sample) },
    ];
    // One token over 64 registrations: the old design (a token without the gate_shards claim, as
    // issued before sharding: one TokenGate object) and the new (a token as issued now), same Worker.
    const oneShard = await signAccessToken(
      {
        jti: crypto.randomUUID(),
        partner_id: server.credentials.partner_id,
        account_id: server.credentials.admin_account_id,
        admin: true,
        exp: Math.floor(Date.now() / 1000) + 6 * 3600,
      },
      SIGNING_KEY,
    );
    const sharded = await tokenFor(server.app, server.credentials, server.credentials.admin_external_user_id);
    const claims = await verifyAccessToken(sharded, SIGNING_KEY, Math.floor(Date.now() / 1000));
    const shards = claims.ok ? (claims.claims.gate_shards ?? 1) : 1;
    const designs = [
      { key: "1", label: "old: one TokenGate per token", token: oneShard, shards: 1 },
      { key: `${shards}`, label: `new: ${shards} shards per token`, token: sharded, shards },
    ];
    const oneToken: Scenario[] = designs.flatMap((d) => [
      {
        key: `token-reads-${d.key}`,
        label: `one token, 64 registrations, reads (${d.label})`,
        traffic: () => S.registrationReads({ ...w, token: d.token }, sample, 64),
      },
      {
        key: `token-events-${d.key}`,
        label: `one token, 64 registrations, graded events (${d.label})`,
        traffic: () => S.graded({ ...w, token: d.token }, sample, 64),
      },
    ]);
    const seriesScenarios: Scenario[] = [];
    const recSeries = values["no-series"]
      ? []
      : ([
          ["50", series[50] as Klass],
          ["500", series[500] as Klass],
          ["2000", big],
        ] as const);
    if (!values["no-series"]) {
      for (const [i, n] of PRIOR.entries()) {
        const reg = priorRegs[i] as string;
        const k = { ...sample, registrations: [reg] };
        seriesScenarios.push({ key: `prior-${n}`, label: `graded event, ${n} prior events`, traffic: () => S.graded(w, k, 1) });
      }
      for (const [n, k] of recSeries) {
        seriesScenarios.push({ key: `ev-${n}`, label: `graded event, ${n} objectives`, traffic: () => S.graded(w, k as Klass, 50) });
        seriesScenarios.push({ key: `pair-${n}`, label: `answer + recommendation, ${n} objectives`, traffic: () => S.answerThenRecommend(w, k as Klass, 50) });
      }
      for (const n of [1, 10]) seriesScenarios.push({ key: `status-${n}`, label: `status page of ${n}`, traffic: () => S.statusPage(w, sample, n) });
      for (const n of [1, 10, 500])
        seriesScenarios.push({ key: `score-${n}`, label: `predicted score, ${n} accounts`, traffic: () => S.predictedScore(w, sample, n, 20) });
    }
    if (values.profile) {
      const profiler = await openProfiler(inspectorPort as number, "pathwise");
      for (const key of values.profile.split(",")) {
        const s = [...main, ...oneToken, ...seriesScenarios].find((m) => m.key === key);
        if (!s) throw new Error(`--profile: no scenario ${key}`);
        await runRound(s, WARMUP_SECONDS, pids, false);
        await profiled(profiler, key, s.label, values["profile-out"], () => runRound(s, SECONDS, pids, false));
      }
      profiler.close();
      return;
    }
    let start: ClassStart | undefined;
    if (classStartWorld) {
      log(`class start: ${CLASS_START_LEARNERS} learners' first answers at once [${elapsed()}]`);
      start = await classStart(server.app, api.token, classStartWorld);
      await settle(pids, QUIET_MS, 120_000);
      log(`  ${JSON.stringify(start.statuses)} in ${(start.wallMs / 1000).toFixed(2)} s${start.failures.length ? `; ${start.failures.join(" | ")}` : ""}`);
    }
    log(`main scenarios: ${ROUNDS} rounds x ${SECONDS} s, ${S.CONNECTIONS} connections`);
    await runAll(only ? main.filter((s) => only.includes(s.key)) : main, ROUNDS, SECONDS, pids);
    const oneTokenRun = only ? oneToken.filter((s) => only.includes(s.key)) : oneToken;
    if (oneTokenRun.length) {
      log(`one token over 64 registrations, old and new design: ${ROUNDS} rounds x ${SECONDS} s`);
      await runAll(oneTokenRun, ROUNDS, SECONDS, pids);
    }

    const recCosts = new Map<string, RecommendationCost>();
    if (!values["no-series"]) {
      log(`series: 1 round x ${SERIES_SECONDS} s`);
      await runAll(seriesScenarios, 1, SERIES_SECONDS, pids);
      log(`recommendation's own CPU: ${REC_CYCLES} cycles of 50 recommendations per graph size, after a warm-up cycle`);
      for (const [n, k] of recSeries) {
        const cost = await recommendationCost(server.app, api.token, k, { registrations: 50, cycles: REC_CYCLES, pids, quietMs: QUIET_MS });
        recCosts.set(n, cost);
        log(
          `  ${n} objectives: ${cost.recommendations} recommendations, ${fmt.ms(cost.cpuMs / cost.recommendations)} ms each (${cost.skipped} cycles skipped) [${elapsed()}]`,
        );
      }
    }

    // --- tables ---
    const hello = summary("hello");
    const floors: Record<string, string> = {
      accounts: "floor-accounts",
      graded: "floor-event",
      batch: "floor-batch",
      "rec-sample": "floor-rec",
      "rec-big": "floor-rec",
      status: "floor-status",
      score: "floor-score",
      token: "floor-token",
    };
    const [l1, l5, l15] = loadAverage();
    out(
      `\nThroughput in workerd (${ROUNDS} x ${SECONDS} s per scenario, ${S.CONNECTIONS} connections, warm-up discarded); load average now ${l1} / ${l5} / ${l15}`,
    );
    out(`machine: ${machine()}; seeding took ${seedSeconds.toFixed(0)} s\n`);
    const row = (key: string, label: string, s: Summary, floor?: Summary) => [
      label,
      fmt.rps(s.rps),
      fmt.ms(s.p50),
      fmt.ms(s.p99),
      fmt.ms(s.cpu),
      fmt.ratio(ratio(s.rps, hello.rps)),
      floor ? fmt.ratio(ratio(s.rps, floor.rps)) : key.startsWith("floor") ? "1.000" : "–",
    ];
    const rows: string[][] = [];
    for (const s of main) {
      const fl = floors[s.key];
      rows.push(row(s.key, s.label, summary(s.key), fl ? summary(fl) : undefined));
    }
    out(table(["scenario", "req/s", "p50 ms", "p99 ms", "server CPU ms/request", "ratio to hello-world", "ratio to floor"], rows));
    const batchS = summary("batch");
    out(`\nbatch of 50: ${fmt.int(batchS.rps * 50)} events/s. Pairs (answer + recommendation): req/s counts pairs; p50/p99 are the recommendation's.`);
    const pairRows: string[][] = [];
    for (const key of ["rec-sample", "rec-big"]) {
      const sAll = summary(key);
      const rec = summary(key, 1);
      const ans = summary(key, 0);
      pairRows.push([
        key === "rec-sample" ? "sample graph (51 objectives)" : "2,000 objectives",
        fmt.rps(sAll.rps),
        `${fmt.ms(ans.p50)} / ${fmt.ms(ans.p99)}`,
        `${fmt.ms(rec.p50)} / ${fmt.ms(rec.p99)}`,
        fmt.ms(sAll.cpu * 2),
      ]);
    }
    out(table(["answer + recommendation", "pairs/s", "answer p50 / p99 ms", "recommendation p50 / p99 ms", "server CPU ms/pair"], pairRows));

    if (start) {
      out("\nClass start (first answers of every learner at once, each sent once; latency per answer):");
      out(table(["class start", "answered 2xx", "errors", "p50 ms", "p99 ms", "max ms", "all answered in s"], [classStartRow(start)]));
    }
    if (oneTokenRun.length) {
      const spread = new Set(sample.registrations.slice(0, 64).map((r) => shardIndex(`GET /v0/registrations/${r}`, shards))).size;
      out(`\nOne token over 64 registrations (the new token's reads fall on ${spread} of its ${shards} gate objects; the old token's on 1):`);
      out(
        table(
          ["scenario", "req/s", "p50 ms", "p99 ms", "server CPU ms/request"],
          oneTokenRun.map((s) => {
            const m = summary(s.key);
            return [s.label, fmt.rps(m.rps), fmt.ms(m.p50), fmt.ms(m.p99), fmt.ms(m.cpu)];
          }),
        ),
      );
    }

    const budget: BudgetLine[] = [];
    for (const s of main) {
      const fl = floors[s.key];
      if (!fl) continue;
      budget.push(atLeast(`${s.label} >= 0.6 of its floor`, ratio(summary(s.key).rps, summary(fl).rps), 0.6, "ratio to floor"));
    }
    if (start) {
      budget.push({
        name: `class start: ${start.learners} first answers at once on a cold 2,000-objective graph, 0 errors`,
        met: classStartErrors(start) === 0,
        detail: `errors ${classStartErrors(start)} (statuses ${JSON.stringify(start.statuses)})`,
      });
    }
    // Issue 13 asked for 2x its ratios to hello-world, measured with wrk against a hello-world of 5,826
    // req/s; this harness's hello-world runs near 10,500, so the same line now asks about 3.6x issue 13's
    // throughput, and for the graded event more than its own storage floor reaches (0.036 against the
    // 0.040 asked). Issue 17's lines against the floors replace them; the ratios are still printed.
    out("\nRatios to hello-world against issue 13's (informational, not budget lines):");
    for (const [key, was] of Object.entries(ISSUE_13_RATIOS)) {
      const label = main.find((s) => s.key === key)?.label ?? key;
      const fl = floors[key];
      const floorRatio = fl ? `, its floor ${ratio(summary(fl).rps, hello.rps).toFixed(3)}` : "";
      out(`- ${label}: ${ratio(summary(key).rps, hello.rps).toFixed(3)} (issue 13: ${was}${floorRatio})`);
    }

    if (!values["no-series"]) {
      out("\nPer-event cost against the registration's history (one registration, 16 connections):");
      const prior = PRIOR.map((n) => ({ n, s: summary(`prior-${n}`) }));
      out(
        table(
          ["prior events", "req/s", "p50 ms", "p99 ms", "server CPU ms/event", "CPU vs 10 prior"],
          prior.map(({ n, s }) => [fmt.int(n), fmt.rps(s.rps), fmt.ms(s.p50), fmt.ms(s.p99), fmt.ms(s.cpu), (s.cpu / (prior[0]?.s.cpu ?? 1)).toFixed(2)]),
        ),
      );
      const first = prior[0]?.s.cpu ?? Number.NaN;
      const last = prior.at(-1);
      budget.push(
        atMost(
          `flat: per-event cost at ${fmt.int(last?.n ?? 0)} prior events <= 1.2x at ${prior[0]?.n}`,
          (last?.s.cpu ?? Number.NaN) / first,
          1.2,
          "cost ratio",
        ),
      );

      out(
        "\nRecommendation against graph size (50 learners; the recommendation's CPU measured alone: each request computes a new recommendation, nothing else running, bench/throughput/recommendation-cost.ts):",
      );
      const recCost = (n: string) => {
        const c = recCosts.get(n);
        return c && c.recommendations > 0 ? c.cpuMs / c.recommendations : Number.NaN;
      };
      out(
        table(
          [
            "objectives",
            "modules",
            "pairs/s",
            "recommendation p50 / p99 ms",
            "CPU ms/pair",
            "CPU ms/graded event",
            "recommendations measured",
            "recommendation CPU ms",
            "vs 50",
          ],
          recSeries.map(([n]) => {
            const pair = summary(`pair-${n}`);
            const rec = summary(`pair-${n}`, 1);
            return [
              fmt.int(Number(n)),
              fmt.int(Number(n) * 10),
              fmt.rps(pair.rps),
              `${fmt.ms(rec.p50)} / ${fmt.ms(rec.p99)}`,
              fmt.ms(pair.cpu * 2),
              fmt.ms(summary(`ev-${n}`).cpu),
              fmt.int(recCosts.get(n)?.recommendations ?? 0),
              fmt.ms(recCost(n)),
              (recCost(n) / recCost("50")).toFixed(2),
            ];
          }),
        ),
      );
      // Each figure is CPU ticks of recommendation requests alone (> 0); a graph size with no counted
      // cycle (each ended too near the answers' alarms) is NaN, and the line is then missed, not measured.
      budget.push(atMost("flat: recommendation on 2,000 objectives <= 3x on 50", recCost("2000") / recCost("50"), 3, "cost ratio"));

      out("\nStatus and progress against page size (sample class):");
      out(
        table(
          ["learners per page", "req/s", "p50 ms", "p99 ms", "server CPU ms/request", "CPU ms per learner"],
          [1, 10, 100].map((n) => {
            const s = summary(n === 100 ? "status" : `status-${n}`);
            return [String(n), fmt.rps(s.rps), fmt.ms(s.p50), fmt.ms(s.p99), fmt.ms(s.cpu), fmt.ms(s.cpu / n)];
          }),
        ),
      );
      out("\nPredicted score against accounts (20 objectives, one group):");
      out(
        table(
          ["accounts", "req/s", "p50 ms", "p99 ms", "server CPU ms/request", "CPU ms per account"],
          [1, 10, 100, 500].map((n) => {
            const s = summary(n === 100 ? "score" : `score-${n}`);
            return [String(n), fmt.rps(s.rps), fmt.ms(s.p50), fmt.ms(s.p99), fmt.ms(s.cpu), fmt.ms(s.cpu / n)];
          }),
        ),
      );
      // Storage: the Durable Object of the registration with the longest history.
      const biggest = PRIOR.length - 1;
      const reg = priorRegs[biggest] as string;
      const ns = await server.mf.getDurableObjectNamespace("REGISTRATIONS", "pathwise");
      const stub = ns.get(ns.idFromName(reg)) as unknown as { learnerState(): Promise<{ global: { n: number } }> };
      const learnerState = await stub.learnerState();
      const state = JSON.stringify(learnerState);
      const files = doFiles(join(dir, "state", "do"));
      const largest = files.sort((a, b) => b.bytes - a.bytes)[0];
      // every event of this registration is graded: the seeded history, the warm-up and the counted rounds
      const events = learnerState.global.n;
      out("\nStorage:");
      out(
        table(
          ["measure", "value"],
          [
            [`Durable Object SQLite file of the registration with ${fmt.int(events)} events`, `${fmt.int(largest?.bytes ?? 0)} bytes`],
            ["stored bytes per event", fmt.int((largest?.bytes ?? 0) / Math.max(1, events))],
            [`learner state (JSON) at ${fmt.int(events)} events`, `${fmt.int(state.length)} bytes`],
            ["deploy bundle (wrangler deploy --dry-run), gzip -9", `${fmt.int(bundles.appGzipBytes)} bytes (${fmt.int(bundles.appBytes)} raw)`],
          ],
        ),
      );
    }

    out("\nBudget:");
    for (const b of budget) out(`- ${b.met ? "met   " : "MISSED"} ${b.name}: ${b.detail}`);
    out(`\n${budgetLine(budget)}`);
    log(`total ${elapsed()}`);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A CPU profile of the service's isolate while idle after the seeding (`--profile idle`): what its alarms and consumers do in the background. */
async function profileIdle(inspectorPort: number, minutes: number, outDir: string | undefined): Promise<void> {
  const profiler = await openProfiler(inspectorPort, "pathwise");
  await profiled(profiler, "idle", `the server idle for ${minutes} min after the seeding`, outDir, () => sleep(minutes * 60_000));
  profiler.close();
}

/** Profiles the service's isolate while `during` runs, prints the summary and writes KEY.cpuprofile into `outDir`. */
async function profiled(
  profiler: Awaited<ReturnType<typeof openProfiler>>,
  key: string,
  label: string,
  outDir: string | undefined,
  during: () => Promise<unknown>,
): Promise<void> {
  // the folder made first: a missing one would fail the write after the whole profiled run
  if (outDir) mkdirSync(resolve(outDir), { recursive: true });
  await profiler.start();
  await during();
  const profile = await profiler.stop();
  if (outDir) writeFileSync(join(resolve(outDir), `${key}.cpuprofile`), JSON.stringify(profile));
  console.log(`\n### profile: ${label}\n${summarizeProfile(profile)}`);
}

/** The server's CPU while no request comes, per IDLE_SAMPLE_MS for `minutes` (share of one core), as a table. */
async function idleCpu(pids: number[], minutes: number): Promise<string> {
  const IDLE_SAMPLE_MS = 30_000;
  const rows: string[][] = [];
  let last = cpuMs(pids);
  for (let i = 1; i <= (minutes * 60_000) / IDLE_SAMPLE_MS; i++) {
    await sleep(IDLE_SAMPLE_MS);
    const now = cpuMs(pids);
    const at = ((i * IDLE_SAMPLE_MS) / 60_000).toFixed(1);
    const share = `${(((now - last) / IDLE_SAMPLE_MS) * 100).toFixed(1)}%`;
    last = now;
    log(`  idle ${at} min: server CPU ${share} of a core [${elapsed()}]`);
    rows.push([at, share]);
  }
  return `\nServer CPU while idle after the seeding (no requests; share of one core per 30 s):\n${table(["minutes after seeding", "server CPU"], rows)}`;
}

/** Sizes of the Durable Object SQLite files (with their WAL) under the persistence directory. */
function doFiles(root: string): { path: string; bytes: number }[] {
  const out: { path: string; bytes: number }[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".sqlite")) {
        let bytes = statSync(p).size;
        try {
          bytes += statSync(`${p}-wal`).size;
        } catch {
          /* no WAL */
        }
        out.push({ path: p, bytes });
      }
    }
  };
  walk(root);
  return out;
}

await main();
