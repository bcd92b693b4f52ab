/**
 * The engine in process, exactly as the service runs it: per event the tutor-state update
 * (src/policy) and the registration's contribution to the population statistics (src/tracing); per
 * request the policy on the goal prepared from the graph's runtime form with the population's current
 * rates. The class's statistics are gathered as the queue does and turned into rates every
 * REFRESH_ROUNDS rounds (a round is one step of every student, about 45 s of a class: the service
 * refreshes within 60 s). Each student's share of the statistics is the service's own
 * (PopulationShare, on storage in memory): contributed at every answer, and once the evidence stops
 * changing, re-read under newer rates by the same checks as the registration's alarm makes
 * (src/tracing/reread.ts), each at the end of the first round past its time.
 */

import { buildRuntimeGraph } from "../../src/graphs/build-runtime-graph";
import { resolveGoalScope } from "../../src/graphs/resolve-goal-scope";
import { type GraphIndex, indexGraph } from "../../src/graphs/runtime-graph";
import { PopulationShare } from "../../src/objects/registration/population-share";
import {
  type AdaptiveBehavior,
  GoalAnalysis,
  goalStatusWith,
  initialTutorState,
  type PreparedGoal,
  prepareGoal,
  recommendWith,
  type TutorState,
} from "../../src/policy";
import { updateTutorState } from "../../src/policy/tutor-state";
import { estimateRates } from "../../src/tracing/estimate";
import { type PopulationRates, priorPopulation } from "../../src/tracing/rates";
import { accumulate, emptyDelta, type StatisticsDelta } from "../../src/tracing/statistics";
import { type ClassFactory, type ClassSession, STEP_MS } from "./class-run";
import { type RateFamily, trueRates, withEstimated } from "./true-rates";
import { goalBody, graphDocument, type World } from "./world";

export const REFRESH_ROUNDS = 1;

/** A registration's key-value storage, in memory. */
function memoryKv(): SyncKvStorage {
  const values = new Map<string, unknown>();
  return {
    get: (key: string) => values.get(key),
    put: (key: string, value: unknown) => void values.set(key, value),
    delete: (key: string) => values.delete(key),
  } as unknown as SyncKvStorage;
}

export interface Compiled {
  index: GraphIndex;
  prepared: PreparedGoal;
}

export function compileWorld(world: World, behavior: AdaptiveBehavior = "practice"): Compiled {
  let u = 0;
  const rg = buildRuntimeGraph(graphDocument(world), {
    id: `sim-${world.seed}`,
    version: 1,
    newUuid: () => `00000000-0000-4000-8000-${(u++).toString(16).padStart(12, "0")}`,
  });
  const index = indexGraph(rg);
  const body = goalBody(world, behavior);
  const resolved = resolveGoalScope(index, {
    targets: body.targets.include.map((id, i) => ({ id, path: `targets[${i}]` })),
    remediationDepth: body.scope.remediation_depth,
    include: [],
    exclude: [],
  });
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.problems));
  const s = resolved.scope;
  const labels = {
    targetObjectives: s.targetObjectives.map((o) => rg.objectives[o] as string),
    scopeObjectives: s.objectives.map((o) => rg.objectives[o] as string),
    scopeModules: s.modules.map((m) => rg.modules[m]!.label),
  };
  return { index, prepared: prepareGoal(body, labels, index) };
}

export interface InProcessOptions {
  behavior?: AdaptiveBehavior;
  /** false: the prior rates throughout (no population learning) */
  learn?: boolean;
  refreshRounds?: number;
  /** decide on the world's true rates (true-rates.ts) with only these families estimated from the class ([] : all true) */
  trueRatesBut?: readonly RateFamily[];
}

/** A class in process, with the rates its decisions use now (for inspection). */
export type InProcessSession = ClassSession & { rates(): PopulationRates };

/** A class on the world's graph and goal. */
export function inProcessClass(options: InProcessOptions = {}): (...args: Parameters<ClassFactory>) => Promise<InProcessSession> {
  return async (world) => {
    const truth = options.trueRatesBut ? trueRates(world) : undefined;
    const decideOn = truth
      ? (estimate: PopulationRates) => withEstimated(world, truth, estimate, options.trueRatesBut ?? [])
      : (estimate: PopulationRates) => estimate;
    return classSession(compileWorld(world, options.behavior), options.learn ?? true, options.refreshRounds ?? REFRESH_ROUNDS, decideOn);
  };
}

function classSession(
  { index, prepared }: Compiled,
  learn: boolean,
  refreshRounds: number,
  /** the rates the class's decisions use, from the engine's current estimate */
  decideOn: (estimate: PopulationRates) => PopulationRates,
): InProcessSession {
  const prereqs = new Map(
    index.graph.objectives.map((label, o) => [label, (index.graph.prerequisites[o] ?? []).map((p) => index.graph.objectives[p] as string)]),
  );
  const prerequisites = (label: string) => prereqs.get(label) ?? [];
  const totals = emptyDelta();
  let pending: StatisticsDelta = emptyDelta();
  let population: PopulationRates = decideOn(priorPopulation());
  let version = 0;
  /** each student's evidence and its share of the population statistics (the service's PopulationShare, on storage in memory) */
  const readers: { tutor: TutorState; share: PopulationShare }[] = [];
  /** the end of the latest round (ms, the simulator's clock) */
  let clockMs = 0;
  /**
   * After a round: the students whose re-reading check is due make it as the registration's alarm
   * does, at the time it was due (the alarm fires then), and their deltas go with the next refresh.
   */
  const rereadIdle = () => {
    if (!learn) return;
    for (const { tutor, share } of readers) {
      const dueMs = share.rereadDueAt();
      if (dueMs === undefined || clockMs < dueMs) continue;
      const delta = share.reread(() => tutor, population, prerequisites, dueMs);
      if (delta) accumulate(pending, delta);
    }
  };
  const refresh = () => {
    if (!learn) return;
    accumulate(totals, pending);
    pending = emptyDelta();
    population = decideOn(estimateRates(totals, `sim:${++version}`));
  };
  return {
    /** the rates the class's decisions use now (for inspection) */
    rates: () => population,
    async tick(round) {
      rereadIdle();
      if ((round + 1) % refreshRounds === 0) refresh();
    },
    async settle() {
      refresh();
    },
    async student() {
      const tutor = initialTutorState();
      const share = new PopulationShare(memoryKv());
      readers.push({ tutor, share });
      let now = 0;
      const analysis = () => new GoalAnalysis(prepared, tutor, population, now);
      return {
        async view() {
          const a = analysis();
          const rec = recommendWith(a, false);
          const st = goalStatusWith(a);
          if ((rec.status === "ready") !== (st.status === "complete")) throw new Error("ready and complete disagree");
          if (rec.stuck !== (st.status === "struggling") && st.status !== "complete_max_work" && st.status !== "no_work")
            throw new Error("stuck and struggling disagree");
          return {
            moduleIds: rec.module_ids,
            ready: rec.status === "ready",
            stuck: rec.stuck,
            workRemaining: st.work_remaining,
            status: st.status,
            progress: st.progress,
            current: rec.justification?.current_learning_objective_id,
            intent: rec.justification?.intent,
            remedial: rec.justification?.remedial,
          };
        },
        async status() {
          const st = goalStatusWith(analysis());
          return { status: st.status, progress: st.progress, workRemaining: st.work_remaining };
        },
        async send(moduleId, correct, timeMs) {
          const mi = index.moduleByLabel.get(moduleId);
          const m = mi === undefined ? undefined : index.graph.modules[mi];
          if (!m) throw new Error(`unknown module ${moduleId}`);
          const objectives = m.objectives.map((o) => index.graph.objectives[o] as string);
          updateTutorState(
            tutor,
            correct === undefined
              ? { kind: "ungraded", itemKey: m.label, objectives, timeMs }
              : { kind: "graded", itemKey: m.label, objectives, correct, timeMs },
          );
          // as the service does (objects/registration/population-share.ts): every objective worked on, re-read
          if (learn) accumulate(pending, share.contribute(tutor, population, prerequisites, timeMs));
          now = timeMs;
          clockMs = Math.max(clockMs, timeMs + STEP_MS);
        },
      };
    },
  };
}
