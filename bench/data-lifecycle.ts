// The student data lifecycle's costs (docs/privacy.md "Measured"), against `wrangler dev`:
// - the erasure of a 1,000-event learner (two registrations of 500 events, goals, tokens, projections):
//   the request's latency, the time until the receipt says complete, and the receipt;
// - the export of a 100,000-event learner, as JSON and as xAPI statements: time to the first byte,
//   total time, size, and the peak memory of the service's workerd processes while it streams (the
//   export is read a page at a time: the peak must not grow with the log).
//   npm run bench -- data-lifecycle [--events 100000]

import { readdirSync, readFileSync } from "node:fs";
import { startLocalService } from "../scripts/lib/local-service";
import { tokenFor } from "../scripts/lib/seed-demo";
import { demoGraph } from "../test/support/demo-graph";
import { api } from "./lib/bench-http";

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const EXPORT_EVENTS = flag("events", 100_000);
const MODULES = ["mref-a1", "mref-a2", "mref-b1", "mref-b2", "mref-c1", "mref-c2", "mref-d1", "mref-d2"];

/** The resident memory (MB) of this process's workerd descendants (the served Worker), from /proc. */
function workerdRssMb(): number {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      name.set(pid, stat.slice(stat.indexOf("(") + 1, close));
      parent.set(pid, Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      /* the process ended */
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const [pid, n] of name) {
    if (!n.startsWith("workerd") || !mine(pid)) continue;
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      /* ended */
    }
  }
  return kb / 1024;
}

export async function run(): Promise<void> {
  const service = await startLocalService({ vars: { RATE_LIMIT_MULTIPLIER: "off" } });
  const call = (method: string, path: string, body?: unknown) => api(service, method, path, body, [200, 201, 202, 204]);
  try {
    await call("POST", "/v0/graphs", demoGraph("gref-bench-life"));
    const learner = async (tag: string, registrations: number) => {
      const account = await call("POST", "/v0/accounts", { external_user_id: `bench-${tag}-${Date.now()}` });
      const regs: string[] = [];
      for (let r = 0; r < registrations; r++) {
        const li = await call("POST", "/v0/learning-instances", { graph_id: "gref-bench-life", name: `Bench ${tag} ${r}` });
        regs.push((await call("POST", "/v0/registrations", { account_id: account.id, learning_instance_id: li.id, type: "learner" })).id);
      }
      return { account, regs };
    };
    const post = async (reg: string, n: number, from: number, start: number) => {
      for (let sent = 0; sent < n; sent += 500) {
        const events = Array.from({ length: Math.min(500, n - sent) }, (_, k) => ({
          type: "graded-events",
          module_id: MODULES[(from + sent + k) % MODULES.length],
          interaction_end_time: new Date(start + (sent + k) * 1000).toISOString(),
          is_correct: (sent + k) % 3 !== 0,
          duration: 30_000,
        })).reverse();
        await call("POST", `/v0/registrations/${reg}/batch-events`, { events });
      }
    };

    // --- erasure of a 1,000-event learner ---
    const erased = await learner("erase", 2);
    for (const [i, reg] of erased.regs.entries()) await post(reg, 500, i, Date.now() - 3 * 3600_000);
    await tokenFor(service.base, service.credentials, erased.account.external_user_id); // the learner's own tokens
    await new Promise((r) => setTimeout(r, 12_000)); // projections and population contributions delivered (5 s batches locally)
    const requested = performance.now();
    const accepted = await call("POST", `/v0/accounts/${erased.account.id}/erasure`);
    const acceptedMs = performance.now() - requested;
    let receipt: any;
    do {
      await new Promise((r) => setTimeout(r, 25));
      receipt = await call("GET", `/v0/erasures/${accepted.erasure_id}`);
    } while (receipt.status !== "complete");
    const completeMs = performance.now() - requested;
    console.log(
      `Erasure of a 1,000-event learner (2 registrations): request answered in ${acceptedMs.toFixed(0)} ms, receipt complete after ${completeMs.toFixed(0)} ms`,
    );
    console.log("Receipt:");
    console.log(JSON.stringify(receipt, null, 2));

    // --- export of a long history ---
    const big = await learner("export", 1);
    const ingestStart = performance.now();
    await post(big.regs[0] as string, EXPORT_EVENTS, 0, Date.now() - EXPORT_EVENTS * 1000 - 60_000);
    console.log(`\n${EXPORT_EVENTS} events stored in ${((performance.now() - ingestStart) / 1000).toFixed(1)} s (batches of 500)`);
    console.log(`\n| export of ${EXPORT_EVENTS} events | first byte ms | total s | MB | MB/s | workerd RSS before → peak MB |`);
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const format of ["json", "xapi"]) {
      const before = workerdRssMb();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, workerdRssMb());
      }, 100);
      const started = performance.now();
      const res = await fetch(`${service.base}/v0/accounts/${big.account.id}/export?format=${format}`, {
        headers: { Authorization: `Bearer ${service.adminToken}` },
      });
      if (!res.ok || !res.body) throw new Error(`export: ${res.status}`);
      const reader = res.body.getReader();
      let first = 0;
      let bytes = 0;
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        if (!first) first = performance.now() - started;
        bytes += r.value.byteLength;
      }
      const total = (performance.now() - started) / 1000;
      clearInterval(sampler);
      const mb = bytes / 1e6;
      console.log(
        `| ${format} | ${first.toFixed(0)} | ${total.toFixed(1)} | ${mb.toFixed(1)} | ${(mb / total).toFixed(1)} | ${before.toFixed(0)} → ${peak.toFixed(0)} |`,
      );
    }
  } finally {
    await service.stop();
  }
}

run().catch((e) => {
  console.error(e);
  process.exit(1);
});
