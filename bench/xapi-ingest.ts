// What xAPI statements cost next to the event posts they stand for (docs/xapi.md): the same answers
// sent as one graded event vs one statement, and as a batch of 100 events vs an array of 100
// statements, alternating, each request on a fresh registration of its own kind so history length
// is the same for both. The difference is the statement work: mapping, the module check, the
// partner-wide id claims in D1 and the object's record of stored ids.
//   npm run bench -- xapi-ingest

import { startLocalService } from "../scripts/lib/local-service";
import { demoGraph } from "../test/support/demo-graph";
import { api, percentile } from "./lib/bench-http";

const SAMPLES = 40;
const ARRAY = 100;
const MODULES = ["mref-a1", "mref-a2", "mref-b1", "mref-b2", "mref-c1", "mref-c2", "mref-d1", "mref-d2"];

export async function run(): Promise<void> {
  const service = await startLocalService({ port: 8792, vars: { RATE_LIMIT_MULTIPLIER: "off" } });
  try {
    await api(service, "POST", "/v0/graphs", demoGraph("gref-bench"));
    const li = await api(service, "POST", "/v0/learning-instances", { graph_id: "gref-bench", name: "Bench" });
    const learner = async (n: number) => {
      const account = await api(service, "POST", "/v0/accounts", { external_user_id: `bench-xapi-${n}` });
      const reg = await api(service, "POST", "/v0/registrations", { account_id: account.id, learning_instance_id: li.id, type: "learner" });
      return { name: account.external_user_id as string, reg: reg.id as string };
    };
    const [viaEvents, viaXapi] = [await learner(1), await learner(2)];
    const time = (i: number) => new Date(Date.now() - (ARRAY - i) * 1000).toISOString();
    const event = (i: number) => ({ type: "graded-events", module_id: MODULES[i % MODULES.length], interaction_end_time: time(i), is_correct: i % 3 !== 0 });
    const statement = (i: number) => ({
      actor: { account: { homePage: "https://lms.example.edu", name: viaXapi.name } },
      verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
      object: { id: `https://lms.example.edu/activities/${MODULES[i % MODULES.length]}` },
      result: { success: i % 3 !== 0 },
      context: { registration: viaXapi.reg },
      timestamp: time(i),
    });
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const started = performance.now();
      const res = await fetch(`${service.base}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      await res.text();
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      return performance.now() - started;
    };
    const xapi = { "X-Experience-API-Version": "1.0.3" };
    const cases = {
      "1 graded event (graded-events)": () => post(`/v0/registrations/${viaEvents.reg}/graded-events`, { ...event(0), type: undefined }),
      "1 statement (xapi/statements)": () => post("/v0/xapi/statements", statement(0), xapi),
      [`${ARRAY} events (batch-events)`]: () =>
        post(`/v0/registrations/${viaEvents.reg}/batch-events`, { events: Array.from({ length: ARRAY }, (_, i) => event(i)).reverse() }),
      [`${ARRAY} statements (xapi/statements)`]: () =>
        post(
          "/v0/xapi/statements",
          Array.from({ length: ARRAY }, (_, i) => statement(i)),
          xapi,
        ),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (const run of Object.values(cases)) await run(); // warm-up (graph and item parameters cached)
    for (let s = 0; s < SAMPLES; s++) for (const [name, run] of Object.entries(cases)) samples[name]?.push(await run());
    console.log(`| request                              | median ms | p90 ms |   (${SAMPLES} samples each, alternating)`);
    console.log("| ------------------------------------ | --------- | ------ |");
    for (const [name, values] of Object.entries(samples)) {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(`| ${name.padEnd(36)} | ${percentile(sorted, 0.5).toFixed(1).padStart(9)} | ${percentile(sorted, 0.9).toFixed(1).padStart(6)} |`);
    }
  } finally {
    await service.stop();
  }
}

run().catch((e) => {
  console.error(e);
  process.exit(1);
});
