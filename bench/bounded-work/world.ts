// The world of the bounded-work benchmark, created through the public API: the largest graph a
// partner may post (20,000 modules, 2,000 objectives, names padded to just under the 6 MiB body
// limit), one learning instance on it at the instance's registration limit (10,000 learners by
// default), the first learners with event history (their projections feed predicted scores), and
// goals of 2,000 targets each (the most a goal may have).
import type { GraphDocument } from "../../src/graphs/graph-document";
import { GRAPH_DOCUMENT_MAX_BYTES } from "../../src/schemas/limits";
import { syntheticGraph } from "../lib/synthetic-graph";
import { type Api, fillHistory, type GraphInfo, pool, postGraph } from "../throughput/seed";

export interface World {
  graph: GraphInfo;
  doc: GraphDocument;
  instanceId: string;
  /** learner registrations and their accounts, in creation order */
  registrations: string[];
  accounts: string[];
  externalIds: string[];
  /** learners with event history (the first ones) */
  withHistory: number;
  /** goals of GOAL_TARGETS targets each, assigned to every learner */
  goals: string[];
}

/** The body limit of graph documents, less room for the bench's own label. */
const DOC_BYTES = GRAPH_DOCUMENT_MAX_BYTES - 4096;

/** The 20,000-module, 2,000-objective graph with names padded so the document is just under the body limit. */
export function largestGraph(label: string): GraphDocument {
  const doc = syntheticGraph(20_000, 2_000, label);
  const items = doc.learning_objectives.length + doc.modules.length + (doc.bundles?.length ?? 0);
  const spare = DOC_BYTES - Buffer.byteLength(JSON.stringify(doc));
  const pad = Math.max(0, Math.min(480, Math.floor(spare / items)));
  const padded = (name: string) => `${name} ${"x".repeat(Math.max(0, pad - 1))}`;
  return {
    ...doc,
    learning_objectives: doc.learning_objectives.map((o) => ({ ...o, name: padded(o.name) })),
    modules: doc.modules.map((m) => ({ ...m, name: padded(m.name) })),
    bundles: doc.bundles?.map((b) => ({ ...b, name: padded(b.name) })),
  };
}

/** Creates accounts in /v0/batch calls of 50 and registers each as a learner of the instance. */
async function learners(api: Api, instanceId: string, count: number, concurrency: number) {
  const externalIds = Array.from({ length: count }, (_, i) => `bounded-learner-${i}`);
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
    async (account) => (await api.call("POST", "/v0/registrations", { account_id: account, learning_instance_id: instanceId, type: "learner" })).id as string,
  );
  return { accounts, registrations, externalIds };
}

/** A goal on `targets` (at most 2,000), every prerequisite in scope. */
export const bigGoal = (name: string, targets: string[]) => ({
  name,
  adaptive_behavior: "practice",
  targets: { include: targets },
  scope: { remediation_depth: "maximum" },
  config: { assign_to: "none" },
});

export async function seedWorld(
  api: Api,
  options: { learners: number; withHistory: number; events: number; goals: number; concurrency: number },
  log: (s: string) => void,
): Promise<World> {
  const doc = largestGraph("gref-bounded-largest");
  const graph = await postGraph(
    api,
    doc,
    doc.learning_objectives.map((o) => o.id),
  );
  log(
    `  graph: ${doc.modules.length} modules, ${doc.learning_objectives.length} objectives, ${(Buffer.byteLength(JSON.stringify(doc)) / 2 ** 20).toFixed(2)} MiB`,
  );
  const li = await api.call("POST", "/v0/learning-instances", { graph_id: graph.label, name: "Bounded work class" });
  const people = await learners(api, li.id, options.learners, options.concurrency);
  log(`  ${options.learners} learners registered`);
  const endMs = Date.now() - 3_600_000;
  const historic = people.registrations.slice(0, options.withHistory);
  await pool(historic, options.concurrency, (reg, i) => fillHistory(api, reg, graph, options.events, endMs, i + 1));
  log(`  ${historic.length} learners with ${options.events} events each`);
  const goals: string[] = [];
  for (let g = 0; g < options.goals; g++) {
    // 2,000 targets each: every objective, rotated so the goals differ
    const targets = [...graph.objectives.slice(g), ...graph.objectives.slice(0, g)];
    goals.push((await api.call("POST", `/v0/learning-instances/${li.id}/scoped-goals`, bigGoal(`Goal ${g}`, targets))).id as string);
  }
  for (const goal of goals) {
    await api.call("PUT", `/v0/learning-instances/${li.id}/scoped-goals/${goal}/registrations`, { action: "assign", registration_type: "learner" });
  }
  log(`  ${goals.length} goals of ${graph.objectives.length} targets, assigned to every learner`);
  return { graph, doc, instanceId: li.id, ...people, withHistory: historic.length, goals };
}
