/**
 * Strategy A in-process: exactly what the RegistrationObject does per event and per request —
 * applyEvent with SERVICE_PARAMS and the graph's PrereqGraph plus the tutor-state update
 * (applyTutoredEvent), and the policy on the goal prepared from the graph's runtime form.
 */
import { buildRuntimeGraph } from "../../src/graphs/build-runtime-graph";
import { resolveGoalScope } from "../../src/graphs/resolve-goal-scope";
import { type GraphIndex, indexGraph } from "../../src/graphs/runtime-graph";
import { initialLearnerState, type LearnerEvent, type ModelParams } from "../../src/model";
import { SERVICE_PARAMS } from "../../src/model/service-params";
import {
  type AdaptiveBehavior,
  applyTutoredEvent,
  GoalAnalysis,
  goalStatusWith,
  initialTutorState,
  type PreparedGoal,
  prepareGoal,
  recommendWith,
} from "../../src/policy";
import { modelGraphFor } from "../../src/policy/model-graph";
import type { TutorClient, TutorFactory } from "./strategies";
import { goalBody, graphDocument, type World } from "./world";

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

export function inProcessFactory(compiled: Compiled, params: ModelParams = SERVICE_PARAMS): TutorFactory {
  const { index, prepared } = compiled;
  const prereqGraph = modelGraphFor(index);
  return async () => {
    const state = initialLearnerState(params);
    const tutor = initialTutorState();
    let now = 0;
    const client: TutorClient = {
      async view() {
        const a = new GoalAnalysis(prepared, state, tutor, params, now);
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
      async send(moduleId, correct, timeMs) {
        const mi = index.moduleByLabel.get(moduleId);
        const m = mi === undefined ? undefined : index.graph.modules[mi];
        if (!m) throw new Error(`unknown module ${moduleId}`);
        const objectives = m.objectives.map((o) => index.graph.objectives[o] as string);
        const event: LearnerEvent =
          correct === undefined
            ? { kind: "ungraded", itemKey: m.label, objectives, timeMs }
            : { kind: "graded", itemKey: m.label, objectives, correct, timeMs };
        applyTutoredEvent(state, tutor, params, prereqGraph, event);
        now = timeMs;
      },
    };
    return client;
  };
}
