// Cost of the pure recommendation policy (src/policy), in process (no workerd):
//   npx tsx bench/recommendation.ts [--calls 200] [--events 300]   (or `npm run bench -- recommendation`)
// For graphs of 50 / 500 / 2,000 objectives (10 modules per objective: 20,000 at 2,000; the
// synthetic graph of bench/lib), goals on the three last objectives: remediation_depth `one` (the
// default) and `maximum`; and `maximum` on a "chain" graph (prerequisites among the 3 previous
// objectives) where the scope is every objective of the graph (the worst case). A learner
// follows the recommendations for --events events (answers right with probability 0.6), then we time:
//   prepare   prepareGoal once (cached per goal and graph version in the service)
//   recommend one recommendation (module_ids, stuck, justification), fresh analysis per call
//   status    one goalStatus (status, progress, work_remaining, targets)
//   event     applyTutoredEvent: the learner-model update plus the tutor-state update
//   contribute the registration's share of the population statistics for the objectives of one
//             event (src/tracing/contribute.ts; the service runs it off the response path, coalesced)
// Reported: median and p95 ms per call, and the objectives the learner has evidence on.
import { parseArgs } from "node:util";
import { buildRuntimeGraph } from "../src/graphs/build-runtime-graph";
import { type RemediationDepth, resolveGoalScope } from "../src/graphs/resolve-goal-scope";
import { type GraphIndex, indexGraph } from "../src/graphs/runtime-graph";
import { initialLearnerState } from "../src/model";
import { mulberry32 } from "../src/model/math";
import { SERVICE_PARAMS } from "../src/model/service-params";
import { applyTutoredEvent, GoalAnalysis, goalStatusWith, initialTutorState, type PreparedGoal, prepareGoal, recommendWith } from "../src/policy";
import { modelGraphFor } from "../src/policy/model-graph";
import { contribute, emptyContributions } from "../src/tracing/contribute";
import { priorPopulation } from "../src/tracing/rates";
import { emptyDelta } from "../src/tracing/statistics";
import { syntheticGraph } from "./lib/synthetic-graph";

const { values } = parseArgs({ options: { calls: { type: "string", default: "200" }, events: { type: "string", default: "300" } } });
const CALLS = Number(values.calls);
const EVENTS = Number(values.events);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number;
const f = (x: number) => x.toFixed(3);

function compile(index: GraphIndex, depth: RemediationDepth): { goal: PreparedGoal; ms: number; scope: number } {
  const g = index.graph;
  const targets = g.objectives.slice(-3);
  const body = {
    adaptive_behavior: "practice" as const,
    targets: { include: targets, completion_behavior: "all" as const },
    completion_criteria: { min_predicted_mastery: 0.8 },
  };
  const r = resolveGoalScope(index, { targets: targets.map((id, i) => ({ id, path: `t${i}` })), remediationDepth: depth, include: [], exclude: [] });
  if (!r.ok) throw new Error("scope");
  const labels = {
    targetObjectives: r.scope.targetObjectives.map((o) => g.objectives[o] as string),
    scopeObjectives: r.scope.objectives.map((o) => g.objectives[o] as string),
    scopeModules: r.scope.modules.map((m) => g.modules[m]!.label),
  };
  const t1 = performance.now();
  const goal = prepareGoal(body, labels, index);
  return { goal, ms: performance.now() - t1, scope: labels.scopeObjectives.length };
}

console.log(
  `| objectives | modules | remediation | scope objectives | prepare ms | recommend ms median (p95) | status ms median (p95) | event ms median | contribute ms median (p95) | objectives with evidence |`,
);
console.log(`|---|---|---|---|---|---|---|---|---|---|`);
const population = priorPopulation();
/** The synthetic graph, or a "chain" variant where every objective's prerequisites are among the 3 before it (the last objectives then have every other objective as an ancestor). */
function document(n: number, chain: boolean) {
  const doc = syntheticGraph(10 * n, n, `gref-bench-${n}`);
  if (chain) {
    const rnd = mulberry32(n);
    doc.learning_objectives.forEach((o, i) => {
      o.prerequisites = i === 0 ? [] : [...new Set([`lref-o${i - 1}`, `lref-o${Math.max(0, i - 1 - Math.floor(rnd() * 3))}`])];
    });
  }
  return doc;
}

for (const n of [50, 500, 2000]) {
  for (const chain of [false, true]) {
    let u = 0;
    const index = indexGraph(
      buildRuntimeGraph(document(n, chain), { id: `bench-${n}`, version: 1, newUuid: () => `00000000-0000-4000-8000-${(u++).toString(16).padStart(12, "0")}` }),
    );
    const prereqGraph = modelGraphFor(index);
    for (const depth of (chain ? ["maximum"] : ["one", "maximum"]) as RemediationDepth[]) {
      const { goal, ms: prepareMs, scope } = compile(index, depth);
      const state = initialLearnerState(SERVICE_PARAMS);
      const tutor = initialTutorState();
      const rnd = mulberry32(7);
      const eventMs: number[] = [];
      let t = Date.UTC(2026, 0, 5);
      for (let e = 0; e < EVENTS; e++) {
        const rec = recommendWith(new GoalAnalysis(goal, tutor, population, t), true);
        const m = rec.module_ids[0] ?? goal.assess[goal.targetObjectives[0] as number]?.[0];
        if (!m) break;
        const mod = index.graph.modules[index.moduleByLabel.get(m) as number]!;
        const objectives = mod.objectives.map((o) => index.graph.objectives[o] as string);
        t += 30_000;
        const ev =
          mod.type === "instructional"
            ? { kind: "ungraded" as const, itemKey: m, objectives, timeMs: t }
            : { kind: "graded" as const, itemKey: m, objectives, correct: rnd() < 0.6, timeMs: t };
        const t0 = performance.now();
        applyTutoredEvent(state, tutor, SERVICE_PARAMS, prereqGraph, ev);
        eventMs.push(performance.now() - t0);
      }
      const recMs: number[] = [];
      const statMs: number[] = [];
      const contributeMs: number[] = [];
      const prerequisites = (k: string) => prereqGraph.prerequisites[k] ?? [];
      for (let c = 0; c < CALLS; c++) {
        const t0 = performance.now();
        recommendWith(new GoalAnalysis(goal, tutor, population, t), false);
        recMs.push(performance.now() - t0);
        const t1 = performance.now();
        goalStatusWith(new GoalAnalysis(goal, tutor, population, t));
        statMs.push(performance.now() - t1);
        const t2 = performance.now();
        contribute(tutor.obj, tutor.lastObjectives, population, prerequisites, emptyContributions(), emptyDelta());
        contributeMs.push(performance.now() - t2);
      }
      console.log(
        `| ${n}${chain ? " (chain)" : ""} | ${10 * n} | ${depth} | ${scope} | ${f(prepareMs)} | ${f(quantile(recMs, 0.5))} (${f(quantile(recMs, 0.95))}) | ${f(quantile(statMs, 0.5))} (${f(quantile(statMs, 0.95))}) | ${f(quantile(eventMs, 0.5))} | ${f(quantile(contributeMs, 0.5))} (${f(quantile(contributeMs, 0.95))}) | ${Object.keys(tutor.obj).length} |`,
      );
    }
  }
}
