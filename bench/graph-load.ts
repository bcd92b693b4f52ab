// End-to-end graph benchmark in workerd (`wrangler dev`, local D1 and Durable Objects):
//   npx tsx bench/graph-load.ts [--modules 20000] [--objectives 2000] [--rounds 5] [--warm 5]
//   (or `npm run bench -- graph-load`)
// 1. POST /v0/graphs with a generated 20,000-module / 2,000-objective graph (timed, one request).
// 2. The Durable Object graph load: the RegistrationObject loads the instance's graph (D1 read of the
//    runtime parts, JSON.parse, decode, index; `loadRuntimeGraph`) on its first event and keeps it in
//    an isolate-wide cache. Each round restarts the server (fresh isolates: nothing cached, same D1),
//    warms the Worker and the DO machinery on a small graph, then times single graded events:
//      cold A: the first event of a fresh registration on the big graph (DO start + graph load),
//      warm:   the next --warm events of that registration,
//      cold B: the first event of another fresh registration on the big graph (DO start, graph
//              already cached in the isolate by A), then its warm events.
//    cold A - warm is the cost of a cold registration; cold A - cold B isolates the graph load.
//    Also reported: a cold registration right after the ingest, before any restart (the ingest
//    puts the new version in the isolate cache; shows whether Worker and DO share that isolate).
import { parseArgs } from "node:util";
import { type LocalService, startLocalService } from "../scripts/lib/local-service";
import { demoGraph } from "../test/support/demo-graph";
import { api } from "./lib/bench-http";
import { syntheticGraph } from "./lib/synthetic-graph";

const { values } = parseArgs({
  options: {
    modules: { type: "string", default: "20000" },
    objectives: { type: "string", default: "2000" },
    rounds: { type: "string", default: "5" },
    warm: { type: "string", default: "5" },
  },
});
const MODULES = Number(values.modules);
const OBJECTIVES = Number(values.objectives);
const ROUNDS = Number(values.rounds);
const WARM = Number(values.warm);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

let clock = Date.now() - 10_000_000; // events dated in the past, one second apart
let answer = 0;

/** One graded event (an assessing atom of the synthetic graph or of the demo graph); its latency in ms. */
async function gradedEvent(service: LocalService, registrationId: string, moduleId: string): Promise<number> {
  clock += 1000;
  const body = JSON.stringify({ module_id: moduleId, interaction_end_time: new Date(clock).toISOString(), is_correct: answer++ % 3 !== 0 });
  const t0 = performance.now();
  const res = await fetch(`${service.base}/v0/registrations/${registrationId}/graded-events`, {
    method: "POST",
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
    body,
  });
  const text = await res.text();
  const elapsed = performance.now() - t0;
  if (!res.ok) throw new Error(`graded event: ${res.status} ${text.slice(0, 300)}`);
  return elapsed;
}

/** The first event of a registration, then `WARM` more: {cold, warm median}. */
async function coldThenWarm(service: LocalService, registrationId: string, modules: string[]): Promise<{ cold: number; warm: number }> {
  const cold = await gradedEvent(service, registrationId, modules[0]!);
  const warm: number[] = [];
  for (let i = 1; i <= WARM; i++) warm.push(await gradedEvent(service, registrationId, modules[i % modules.length]!));
  return { cold, warm: median(warm) };
}

export async function run(): Promise<void> {
  const service = await startLocalService({ port: 8792, vars: { RATE_LIMIT_MULTIPLIER: "off" } });
  try {
    const doc = syntheticGraph(MODULES, OBJECTIVES, "gref-load");
    const docJson = JSON.stringify(doc);
    const t0 = performance.now();
    const ingest = await fetch(`${service.base}/v0/graphs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
      body: docJson,
    });
    const ingestText = await ingest.text();
    const ingestMs = performance.now() - t0;
    if (ingest.status !== 201) throw new Error(`POST /v0/graphs: ${ingest.status} ${ingestText.slice(0, 300)}`);

    await api(service, "POST", "/v0/graphs", demoGraph("gref-warm"));
    const big = await api(service, "POST", "/v0/learning-instances", { graph_id: "gref-load", name: "Load" });
    const small = await api(service, "POST", "/v0/learning-instances", { graph_id: "gref-warm", name: "Warm-up" });
    let learners = 0;
    const register = async (liId: string) => {
      const account = await api(service, "POST", "/v0/accounts", { external_user_id: `bench-learner-${++learners}` });
      return (await api(service, "POST", "/v0/registrations", { account_id: account.id, learning_instance_id: liId, type: "learner" })).id as string;
    };
    // assessing atoms of the synthetic graph (every fifth module is instructional)
    const bigModules = Array.from({ length: 8 }, (_, i) => `mref-m${i * 5 + 1}`);
    const smallModules = ["mref-a1", "mref-a2", "mref-b1", "mref-c1"];

    // Right after the ingest, on the isolate that ingested the graph.
    const afterIngest = await coldThenWarm(service, await register(big.id), bigModules);

    const rounds: { a: { cold: number; warm: number }; b: { cold: number; warm: number } }[] = [];
    const warmUpReg = await register(small.id);
    for (let r = 0; r < ROUNDS; r++) {
      const regA = await register(big.id);
      const regB = await register(big.id);
      await service.restart();
      for (let i = 0; i < 5; i++) await gradedEvent(service, warmUpReg, smallModules[i % smallModules.length]!);
      const a = await coldThenWarm(service, regA, bigModules);
      const b = await coldThenWarm(service, regB, bigModules);
      rounds.push({ a, b });
      console.error(`  round ${r + 1}: cold A ${ms(a.cold)}, warm ${ms(a.warm)}; cold B ${ms(b.cold)}, warm ${ms(b.warm)}`);
    }

    const coldA = median(rounds.map((x) => x.a.cold));
    const warmA = median(rounds.map((x) => x.a.warm));
    const coldB = median(rounds.map((x) => x.b.cold));
    const warmB = median(rounds.map((x) => x.b.warm));
    console.log(
      `\ngraph: ${MODULES} modules (+${doc.bundles!.length} bundles), ${OBJECTIVES} objectives; request body ${(docJson.length / 1024 / 1024).toFixed(2)} MiB; ` +
        `wrangler dev on 127.0.0.1 (workerd, local D1/DO), Node ${process.version}`,
    );
    console.log("\n| measurement | ms |\n|---|---|");
    console.log(`| POST /v0/graphs (validate, build, store version 1), one request | ${ingestMs.toFixed(0)} |`);
    console.log(`| after ingest, same isolate: first event of a fresh registration | ${afterIngest.cold.toFixed(1)} |`);
    console.log(`| after ingest, same isolate: next ${WARM} events (median) | ${afterIngest.warm.toFixed(1)} |`);
    console.log(`| after restart, cold A: first event, graph not cached (median of ${ROUNDS} rounds) | ${coldA.toFixed(1)} |`);
    console.log(`| after restart, A warm: next ${WARM} events (median) | ${warmA.toFixed(1)} |`);
    console.log(`| after restart, cold B: first event of another registration, graph cached | ${coldB.toFixed(1)} |`);
    console.log(`| after restart, B warm: next ${WARM} events (median) | ${warmB.toFixed(1)} |`);
    console.log(`| **cold A - warm A: a cold registration on this graph** | **${(coldA - warmA).toFixed(1)}** |`);
    console.log(`| **cold A - cold B: DO graph load (D1 read + parse + decode + index) in workerd** | **${(coldA - coldB).toFixed(1)}** |`);
    console.log(`| cold B - warm B: DO start without graph load | ${(coldB - warmB).toFixed(1)} |`);
  } finally {
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
