// Per-event ingest cost against history length: one registration is filled to 100,000 events in
// batches; at 10, 100, 1,000, 10,000 and 100,000 prior events the latency of single graded-event
// posts is sampled. Flat medians mean O(1) work per event (no replay of history).
//   npm run bench -- event-ingest

import { startLocalService } from "../scripts/lib/local-service";
import { demoGraph } from "../test/support/demo-graph";
import { api, percentile } from "./lib/bench-http";

const CHECKPOINTS = [10, 100, 1_000, 10_000, 100_000];
const SAMPLES = 60;
const BATCH = 500;

export async function run(): Promise<void> {
  const service = await startLocalService({ port: 8791, vars: { RATE_LIMIT_MULTIPLIER: "off" } });
  try {
    await api(service, "POST", "/v0/graphs", demoGraph("gref-bench"));
    const li = await api(service, "POST", "/v0/learning-instances", { graph_id: "gref-bench", name: "Bench" });
    const account = await api(service, "POST", "/v0/accounts", { external_user_id: "bench-learner" });
    const reg = await api(service, "POST", "/v0/registrations", { account_id: account.id, learning_instance_id: li.id, type: "learner" });
    const modules = ["mref-a1", "mref-a2", "mref-b1", "mref-b2", "mref-c1", "mref-c2", "mref-d1", "mref-d2"];
    let clock = Date.now() - 200_000 * 1000; // one event per second of history, all in the past
    let count = 0;
    const rows: string[] = [];

    const fill = async (target: number) => {
      while (count < target) {
        const n = Math.min(BATCH, target - count);
        const events = Array.from({ length: n }, (_, i) => ({
          type: "graded-events",
          module_id: modules[(count + i) % modules.length],
          interaction_end_time: new Date(clock + i * 1000).toISOString(),
          is_correct: (count + i) % 3 !== 0,
        })).reverse();
        clock += n * 1000;
        await api(service, "POST", `/v0/registrations/${reg.id}/batch-events`, { events });
        count += n;
      }
    };

    for (const checkpoint of CHECKPOINTS) {
      await fill(checkpoint);
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const t0 = performance.now();
        await api(service, "POST", `/v0/registrations/${reg.id}/graded-events`, {
          module_id: modules[i % modules.length],
          interaction_end_time: new Date(clock).toISOString(),
          is_correct: i % 2 === 0,
        });
        times.push(performance.now() - t0);
        clock += 1000;
        count += 1;
      }
      times.sort((a, b) => a - b);
      rows.push(`| ${checkpoint.toLocaleString("en-US")} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.9).toFixed(2)} | ${SAMPLES} |`);
      console.error(`  ${checkpoint} prior events: median ${percentile(times, 0.5).toFixed(2)} ms`);
    }
    console.log("\nSingle graded-event POST latency through wrangler dev (localhost, includes HTTP, auth, D1 lookup, DO write):");
    console.log("| prior events in the registration | median ms | p90 ms | samples |\n|---|---|---|---|");
    for (const row of rows) console.log(row);
  } finally {
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
