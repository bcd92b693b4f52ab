// The recommendation's own server cost (issue 17's flatness line: a recommendation on 2,000 objectives
// costs at most 3x one on 50). A recommendation is computed again only after an event changes the
// learner state (src/objects/registration/recommendations.ts), so it cannot be timed alone under
// load, and a pair's CPU minus a graded event's from another round is a difference of two noisy
// figures that came out negative (-7.80 ms in the fresh-clone run of 5ec7f9a): deferred work (alarms,
// queue consumers) fell in one round and not the other. Here each cycle
//   1. posts one graded event to each registration (not measured), waits until the server is idle
//      (the requests and the queue batches they cause are done),
//   2. measures the workerd CPU of one GET recommendation per registration, from the first request
//      until the server is idle again: each of them computes a new recommendation (its
//      recommendation_id differs from the cycle before, checked), and nothing else runs then: the
//      registration's alarm (projection, contribution) is due PROJECTION_DELAY_MS (8 s) after the
//      answer, and a cycle whose measurement ends later than MEASURE_WITHIN_MS after its first answer
//      is not counted (a loaded machine: cycles are repeated until `cycles` are counted, or 3x that tried),
//   3. waits until those alarms have run (ALARMS_DONE_MS after the answers, then idle).
// "Idle" inside a cycle is CYCLE_QUIET_MS without CPU use (settle), shorter than a round's quiet
// wait so that a cycle fits before the alarms on a loaded machine; nothing an answer or a
// recommendation defers is timed later than that (the alarm is what carries their deferred work).
// The figure is a sum of CPU ticks of recommendation requests only: it is positive by construction
// (a cycle that measured 0 ticks throws), and holds the whole request (token check, reads, the
// policy's choice, its record), as the pair's difference meant to.
import { cpuMs, settle } from "./cpu";
import { CONNECTIONS, gradedEvent } from "./scenarios";
import type { Klass } from "./seed";

const MEASURE_WITHIN_MS = 7_500;
const CYCLE_QUIET_MS = 500;
const ALARMS_DONE_MS = 12_000;

export interface RecommendationCost {
  /** recommendations measured (counted cycles x registrations) */
  recommendations: number;
  /** workerd CPU of those requests, ms */
  cpuMs: number;
  /** cycles not counted: their measurement ended too close to the answers' alarms */
  skipped: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `task` over `items`, CONNECTIONS at a time. */
async function pool<T>(items: readonly T[], task: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTIONS, items.length) }, worker));
}

export async function recommendationCost(
  app: string,
  token: string,
  k: Klass,
  options: { registrations: number; cycles: number; pids: number[]; quietMs: number },
): Promise<RecommendationCost> {
  const regs = k.registrations.slice(0, options.registrations);
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const lastId = new Map<string, unknown>();
  const result: RecommendationCost = { recommendations: 0, cpuMs: 0, skipped: 0 };
  let counted = 0;
  // cycle 0 is a warm-up: it also lets the alarms of earlier scenarios on these registrations run
  for (let cycle = 0; counted < options.cycles && cycle <= 3 * options.cycles; cycle++) {
    const answeredAt = Date.now();
    await pool(regs, async (reg, i) => {
      const res = await fetch(`${app}/v0/registrations/${reg}/graded-events`, {
        method: "POST",
        headers,
        body: JSON.stringify(gradedEvent(k, cycle * 7919 + i)),
      });
      await res.arrayBuffer();
      if (res.status !== 204) throw new Error(`recommendation cost: graded event ${res.status}`);
    });
    await settle(options.pids, CYCLE_QUIET_MS);
    const before = cpuMs(options.pids);
    await pool(regs, async (reg) => {
      const res = await fetch(`${app}/v0/registrations/${reg}/recommendation?goal_id=${k.goalId}`, { headers });
      const body = (await res.json()) as { recommendation_id?: unknown };
      if (res.status !== 200) throw new Error(`recommendation cost: recommendation ${res.status} ${JSON.stringify(body)}`);
      if (lastId.has(reg) && lastId.get(reg) === body.recommendation_id) throw new Error(`recommendation cost: ${reg}'s recommendation was not computed again`);
      lastId.set(reg, body.recommendation_id);
    });
    await settle(options.pids, CYCLE_QUIET_MS);
    const spent = cpuMs(options.pids) - before;
    const clean = Date.now() - answeredAt <= MEASURE_WITHIN_MS;
    if (cycle > 0 && clean) {
      if (spent <= 0) throw new Error("recommendation cost: a cycle measured no CPU");
      result.recommendations += regs.length;
      result.cpuMs += spent;
      counted++;
    } else if (cycle > 0) result.skipped++;
    await sleep(Math.max(0, answeredAt + ALARMS_DONE_MS - Date.now()));
    await settle(options.pids, options.quietMs);
  }
  return result;
}
