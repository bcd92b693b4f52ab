// Class-scale analytics through wrangler dev (localhost, rate limits off), on the sample pre-algebra
// graph (51 objectives): a class of learners with history, then
//   1. status-and-progress, a page of 100 registrations with 1,000 events each: the fan-out to the
//      page's 100 Durable Objects (what the service does) next to the read a D1 projection would cost
//      instead (one D1 query of 100 rows: measured as GET .../registrations?limit=100, the same
//      auth path and one 100-row query), and the write a projection would add to every event post
//      (one more D1 round trip from the object: measured as the difference between a graded event and
//      the same post followed by one D1 write, estimated from PUT of a goal assignment);
//   2. predicted score for 500 accounts × 50 objectives (the account projections in D1).
//   npm run bench -- class-analytics [-- --learners 500 --events 1000]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type LocalService, startLocalService } from "../scripts/lib/local-service";
import { mulberry32 } from "../src/model/math";
import { api, percentile } from "./lib/bench-http";

const { values } = parseArgs({
  options: { learners: { type: "string", default: "500" }, events: { type: "string", default: "1000" }, page: { type: "string", default: "100" } },
  allowPositionals: true,
});
const LEARNERS = Number(values.learners);
const EVENTS = Number(values.events);
const PAGE = Number(values.page);
const graph = JSON.parse(readFileSync(new URL("../samples/pre-algebra/graph.json", import.meta.url), "utf8")) as {
  learning_objectives: { id: string }[];
  modules: { id: string; type: string; learning_objectives: string[] }[];
};
const objectives = graph.learning_objectives.map((o) => o.id);
const assessing = graph.modules.filter((m) => m.type !== "instructional").map((m) => m.id);

async function timed(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}
const row = (label: string, ms: number[]) => `| ${label} | ${percentile(ms, 0.5).toFixed(1)} | ${percentile(ms, 0.95).toFixed(1)} | ${ms.length} |`;

/** `events` answers for one learner, most recent first, ability `skill` (share right), all in the past. */
function history(events: number, skill: number, seed: number) {
  const start = Date.now() - events * 60_000 - 3_600_000;
  const rnd = mulberry32(seed);
  return Array.from({ length: events }, (_, i) => ({
    type: "graded-events",
    module_id: assessing[Math.floor(rnd() * assessing.length)],
    is_correct: rnd() < skill,
    interaction_end_time: new Date(start + i * 60_000).toISOString(),
  })).reverse();
}

async function seedClass(service: LocalService) {
  await api(service, "POST", "/v0/graphs", JSON.parse(readFileSync(new URL("../samples/pre-algebra/graph.json", import.meta.url), "utf8")));
  const li = await api(service, "POST", "/v0/learning-instances", { graph_id: "gref-pre-algebra", name: "Bench class" });
  const goal = await api(service, "POST", `/v0/learning-instances/${li.id}/scoped-goals`, {
    name: "Bench goal",
    adaptive_behavior: "practice",
    targets: { include: objectives.slice(-5) },
    scope: { remediation_depth: "maximum" },
  });
  const accounts: string[] = [];
  for (let i = 0; i < LEARNERS; i += 50) {
    const requests = Array.from({ length: Math.min(50, LEARNERS - i) }, (_, j) => ({
      method: "post",
      relative_url: "/accounts",
      body: { external_user_id: `bench-${Date.now().toString(36)}-${i + j}` },
    }));
    const res = await api(service, "POST", "/v0/batch", { requests });
    for (const r of res.responses) accounts.push(r.body.account_id);
  }
  const registrations: string[] = [];
  for (const account of accounts) {
    registrations.push((await api(service, "POST", "/v0/registrations", { account_id: account, learning_instance_id: li.id, type: "learner" })).id);
  }
  await api(service, "PUT", `/v0/learning-instances/${li.id}/scoped-goals/${goal.id}/registrations`, { action: "assign", registration_type: "learner" });
  return { li, goal, accounts, registrations };
}

export async function run(): Promise<void> {
  const service = await startLocalService({ vars: { RATE_LIMIT_MULTIPLIER: "off" } });
  try {
    process.stderr.write(`seeding ${LEARNERS} learners...\n`);
    const t0 = Date.now();
    const { li, goal, accounts, registrations } = await seedClass(service);
    // The first page: EVENTS events each; the rest of the class: 60 events each (enough for projections).
    for (const [i, reg] of registrations.entries()) {
      const n = i < PAGE ? EVENTS : 60;
      const events = history(n, 0.3 + 0.6 * (i / registrations.length), i + 1);
      for (let k = 0; k < events.length; k += 500) await api(service, "POST", `/v0/registrations/${reg}/batch-events`, { events: events.slice(k, k + 500) });
    }
    process.stderr.write(`seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s; waiting for the projections queue...\n`);
    await new Promise((r) => setTimeout(r, 15_000));

    const statusBody = { goal_ids: [goal.id], registrations_per_page: PAGE };
    const first = await api(service, "POST", `/v0/learning-instances/${li.id}/metrics/status-and-progress`, statusBody);
    if (first.data.length !== PAGE) throw new Error(`expected a page of ${PAGE}, got ${first.data.length}`);
    const fanOut = await timed(20, () => api(service, "POST", `/v0/learning-instances/${li.id}/metrics/status-and-progress`, statusBody));
    const d1Read = await timed(20, () => api(service, "GET", `/v0/learning-instances/${li.id}/registrations?limit=${PAGE}`));
    const reg = registrations[0] as string;
    const event = () => ({ module_id: assessing[0], is_correct: true, interaction_end_time: new Date(Date.now() - 1000).toISOString() });
    const graded = await timed(40, () => api(service, "POST", `/v0/registrations/${reg}/graded-events`, event()));
    const oneWrite = await timed(40, () => api(service, "PUT", `/v0/learning-instances/${li.id}/scoped-goals/${goal.id}/registrations/${reg}`));
    const oneRead = await timed(40, () => api(service, "GET", `/v0/learning-instances/${li.id}/scoped-goals/${goal.id}/registrations/${reg}`));

    const scoreBody = (groups: number, perObjective: boolean) => ({
      account_ids: accounts.slice(0, 500),
      graph_ids: ["gref-pre-algebra"],
      grouped_learning_objectives: Array.from({ length: groups }, (_, g) => ({
        group_id: `g${g}`,
        learning_objectives: objectives
          .slice(0, 50)
          .filter((_, k) => k % groups === g)
          .map((id) => ({ learning_objective_id: id })),
      })),
      confidence_levels: [10, 50, 90],
      get_overall_score: perObjective,
      get_learning_objective_scores: perObjective,
    });
    const scoreOne = await timed(8, () => api(service, "POST", "/v0/accounts/metrics/predicted-score", scoreBody(1, false)));
    const scoreFive = await timed(8, () => api(service, "POST", "/v0/accounts/metrics/predicted-score", scoreBody(5, true)));

    console.log(
      `\nClass of ${LEARNERS} learners on the pre-algebra sample (51 objectives); the first ${PAGE} with ${EVENTS} events each. Latency through wrangler dev (localhost):`,
    );
    console.log("| request | median ms | p95 ms | samples |\n|---|---|---|---|");
    console.log(row(`status-and-progress, page of ${PAGE}: fan-out to ${PAGE} objects (the service)`, fanOut));
    console.log(row(`one D1 query of ${PAGE} rows (what reading a projection would cost)`, d1Read));
    console.log(row("graded event (the service)", graded));
    console.log(row("one-row D1 write request (PUT goal assignment)", oneWrite));
    console.log(row("one-row D1 read request (GET goal assignment)", oneRead));
    console.log(row(`predicted score, ${Math.min(500, accounts.length)} accounts × 50 objectives, 1 group`, scoreOne));
    console.log(row(`predicted score, ${Math.min(500, accounts.length)} accounts × 50 objectives, 5 groups + per-objective + overall`, scoreFive));
    console.log(
      `\nA D1 projection would add one D1 write to every event post, about ${(percentile(oneWrite, 0.5) - percentile(oneRead, 0.5)).toFixed(1)} ms ` +
        "(write request minus read request), paid by every answer of every learner, to save the fan-out on a page read.",
    );
  } finally {
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
