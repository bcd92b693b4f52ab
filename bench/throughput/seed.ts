// The benchmark's world, created through the public API (what a partner would do): the sample
// graph and synthetic graphs, learning instances with a goal assigned to every learner, learners
// with history (batch-events of <= 500, most recent first, all in the past).
import { readFileSync } from "node:fs";
import type { GraphDocument } from "../../src/graphs/graph-document";
import { syntheticGraph } from "../lib/synthetic-graph";

const SAMPLE = new URL("../../samples/pre-algebra/graph.json", import.meta.url);

export class Api {
  constructor(
    readonly base: string,
    public token = "",
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<any> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 503 && attempt < 3) continue;
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : null;
    }
  }
}

/** Runs `task` over `items`, `concurrency` at a time. */
export async function pool<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await task(items[i] as T, i);
      }
    }),
  );
  return out;
}

/** Deterministic pseudo-random numbers (runs compare). */
function lcg(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface Klass {
  graphLabel: string;
  instanceId: string;
  goalId: string;
  /** learner registrations, in creation order, and their accounts */
  registrations: string[];
  accounts: string[];
  externalIds: string[];
  /** assessing atoms of the graph and the goal's objectives (for events and predicted scores) */
  assessing: string[];
  objectives: string[];
}

export interface GraphInfo {
  label: string;
  assessing: string[];
  objectives: string[];
  targets: string[];
}

export function sampleGraph(): GraphDocument {
  return JSON.parse(readFileSync(SAMPLE, "utf8")) as GraphDocument;
}

export async function postGraph(api: Api, doc: GraphDocument, targets: string[]): Promise<GraphInfo> {
  await api.call("POST", "/v0/graphs", doc);
  return {
    label: doc.label,
    assessing: doc.modules.filter((m) => m.type !== "instructional").map((m) => m.id),
    objectives: doc.learning_objectives.map((o) => o.id),
    targets,
  };
}

export const synthetic = (objectives: number) => syntheticGraph(10 * objectives, objectives, `gref-synthetic-${objectives}`);

/** `n` graded answers for one learner, most recent first, the newest `endMs`, a minute apart. */
export function history(graph: GraphInfo, n: number, endMs: number, seed: number, skill = 0.6) {
  const rnd = lcg(seed);
  return Array.from({ length: n }, (_, i) => ({
    type: "graded-events" as const,
    module_id: graph.assessing[Math.floor(rnd() * graph.assessing.length)] as string,
    is_correct: rnd() < skill,
    duration: 30_000 + Math.floor(rnd() * 60_000),
    interaction_end_time: new Date(endMs - i * 60_000).toISOString(),
  }));
}

/** Posts `n` events of history to a registration in batches of 500 (oldest batch first, each most recent first). */
export async function fillHistory(api: Api, registration: string, graph: GraphInfo, n: number, endMs: number, seed: number): Promise<void> {
  const all = history(graph, n, endMs, seed);
  for (let end = all.length; end > 0; end -= 500) {
    await api.call("POST", `/v0/registrations/${registration}/batch-events`, { events: all.slice(Math.max(0, end - 500), end) });
  }
}

/** A learning instance on `graph` with `learners` learners (accounts created in /batch calls of 50), no goal, no history. */
export async function enrol(api: Api, graph: GraphInfo, name: string, learners: number, concurrency: number): Promise<Omit<Klass, "goalId">> {
  const li = await api.call("POST", "/v0/learning-instances", { graph_id: graph.label, name });
  const externalIds = Array.from({ length: learners }, (_, i) => `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-learner-${i}`);
  const chunks: string[][] = [];
  for (let i = 0; i < externalIds.length; i += 50) chunks.push(externalIds.slice(i, i + 50));
  const created = await pool(chunks, 4, async (chunk) => {
    const res = await api.call("POST", "/v0/batch", {
      requests: chunk.map((id) => ({ method: "post", relative_url: "/accounts", body: { external_user_id: id } })),
    });
    return (res.responses as { code: number; body: { account_id: string } }[]).map((r) => {
      if (r.code !== 201) throw new Error(`account not created: ${JSON.stringify(r)}`);
      return r.body.account_id;
    });
  });
  const accounts = created.flat();
  const registrations = await pool(
    accounts,
    concurrency,
    async (account) => (await api.call("POST", "/v0/registrations", { account_id: account, learning_instance_id: li.id, type: "learner" })).id as string,
  );
  return {
    graphLabel: graph.label,
    instanceId: li.id,
    registrations,
    accounts,
    externalIds,
    assessing: graph.assessing,
    objectives: graph.objectives,
  };
}

/** `enrol`, then a goal assigned to every learner and `events` events of history each. */
export async function seedClass(api: Api, graph: GraphInfo, name: string, learners: number, events: number, concurrency: number): Promise<Klass> {
  const klass = await enrol(api, graph, name, learners, concurrency);
  const goal = await api.call("POST", `/v0/learning-instances/${klass.instanceId}/scoped-goals`, {
    name: `${name} goal`,
    adaptive_behavior: "practice",
    targets: { include: graph.targets },
    scope: { remediation_depth: "two" },
    completion_criteria: { min_predicted_mastery: 0.8, min_work_per_target: 3 },
  });
  await api.call("PUT", `/v0/learning-instances/${klass.instanceId}/scoped-goals/${goal.id}/registrations`, { action: "assign", registration_type: "learner" });
  const endMs = Date.now() - 3_600_000;
  if (events > 0) await pool(klass.registrations, concurrency, (reg, i) => fillHistory(api, reg, graph, events, endMs, i + 1));
  return { ...klass, goalId: goal.id };
}
