// The class-start scenario (issue 17): a class begins on a graph no isolate has loaded yet and every
// learner posts a first answer at the same moment. Every registration's object then needs the same
// 2,000-objective graph and its item parameters at once (the race that answered 503s when a read in
// flight was shared across objects, src/lib/in-flight.ts). One shot, not a timed round: each answer
// is sent once (no retry), and every status and latency is kept.
import { gradedEvent } from "./scenarios";
import { type Api, enrol, postGraph, synthetic } from "./seed";
import { quantile } from "./stats";

export interface ClassStart {
  learners: number;
  statuses: Record<number, number>;
  /** the first few non-2xx answers or network errors, as "status body" */
  failures: string[];
  latencies: number[];
  wallMs: number;
}

/**
 * A fresh 2,000-objective / 20,000-module graph (its own uuid, so cold in every isolate) and a class
 * of `learners` without goal or history: creating a goal would load the graph into this workerd's one
 * isolate, while on Cloudflare the learners' objects run elsewhere and start cold.
 */
export async function seedClassStart(api: Api, learners: number) {
  const doc = { ...synthetic(2000), label: "gref-class-start" };
  const graph = await postGraph(api, doc, []);
  return enrol(api, graph, "Class start", learners, 16);
}

/** Every learner's first graded event, all sent at once. */
export async function classStart(app: string, token: string, klass: Awaited<ReturnType<typeof seedClassStart>>): Promise<ClassStart> {
  const at = new Date(Date.now() - 60_000).toISOString();
  const t0 = performance.now();
  const answers = await Promise.all(
    klass.registrations.map(async (reg, i) => {
      const start = performance.now();
      try {
        const res = await fetch(`${app}/v0/registrations/${reg}/graded-events`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": `class-start-${reg}` },
          body: JSON.stringify({ ...gradedEvent(klass, i * 7), interaction_end_time: at }),
        });
        const text = await res.text();
        return { status: res.status, ms: performance.now() - start, text };
      } catch (error) {
        return { status: 0, ms: performance.now() - start, text: String(error) };
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const statuses: Record<number, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const failures = answers
    .filter((a) => a.status < 200 || a.status >= 300)
    .slice(0, 5)
    .map((a) => `${a.status} ${a.text.slice(0, 200)}`);
  return { learners: klass.registrations.length, statuses, failures, latencies: answers.map((a) => a.ms), wallMs };
}

export const classStartErrors = (r: ClassStart) =>
  Object.entries(r.statuses).reduce((n, [code, count]) => n + (Number(code) >= 200 && Number(code) < 300 ? 0 : count), 0);

export function classStartRow(r: ClassStart): string[] {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  return [
    `${r.learners} learners, cold 2,000-objective graph`,
    String(r.learners - classStartErrors(r)),
    String(classStartErrors(r)),
    quantile(sorted, 0.5).toFixed(1),
    quantile(sorted, 0.99).toFixed(1),
    (sorted.at(-1) ?? 0).toFixed(1),
    (r.wallMs / 1000).toFixed(2),
  ];
}
