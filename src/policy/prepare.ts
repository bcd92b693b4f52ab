/**
 * Compiles a goal (body + resolved scope labels) against a runtime graph into a PreparedGoal.
 * Run once per (goal version, graph version) and cache the result: it walks the goal's scope only
 * (never the whole graph): O(scope objectives + their prerequisite edges + their atoms), and the
 * prerequisites' reduction O(edges × objectives / 32).
 */
import type { GraphIndex } from "../graphs/runtime-graph";
import { withoutImpliedPrerequisites } from "../tracing/implied-prerequisites";
import type { CompletionBehavior, GoalBodyLike, GoalScopeLabels, PreparedGoal, PreparedTarget, PreparedTopic } from "./types";

export const DEFAULT_MIN_MASTERY = 0.8;

export function prepareGoal(body: GoalBodyLike, scope: GoalScopeLabels, index: GraphIndex): PreparedGoal {
  const g = index.graph;
  // Local objectives in the graph's topological order.
  const globalIdx: number[] = [];
  for (const label of scope.scopeObjectives) {
    const i = index.objectiveByLabel.get(label);
    if (i !== undefined) globalIdx.push(i);
  }
  for (const label of scope.targetObjectives) {
    const i = index.objectiveByLabel.get(label);
    if (i !== undefined && !globalIdx.includes(i)) globalIdx.push(i);
  }
  globalIdx.sort((a, b) => a - b);
  const n = globalIdx.length;
  const localOfGlobal = new Map<number, number>();
  for (const [li, gi] of globalIdx.entries()) localOfGlobal.set(gi, li);
  const labels = globalIdx.map((gi) => g.objectives[gi] as string);
  const local = new Map<string, number>();
  for (const [i, l] of labels.entries()) local.set(l, i);

  // In-scope prerequisites, without those another of them needs (src/tracing/implied-prerequisites.ts).
  const prereqs = withoutImpliedPrerequisites(globalIdx.map((gi) => (g.prerequisites[gi] ?? []).flatMap((gp) => localOfGlobal.get(gp) ?? [])));

  // Recommendable atoms per objective.
  const scopeModules = new Set(scope.scopeModules);
  const assess: string[][] = [];
  const instruct: string[][] = [];
  for (let li = 0; li < n; li++) {
    const gi = globalIdx[li]!;
    const a: string[] = [];
    for (const m of g.assessmentsByObjective[gi] ?? []) {
      const label = g.modules[m]?.label;
      if (label !== undefined && scopeModules.has(label)) a.push(label);
    }
    const s: string[] = [];
    for (const m of g.instructionByObjective[gi] ?? []) {
      const mod = g.modules[m];
      if (mod && mod.type === "instructional" && scopeModules.has(mod.label)) s.push(mod.label);
    }
    assess.push(a);
    instruct.push(s);
  }

  // Targets and topics, in goal order.
  const targets: PreparedTarget[] = [];
  const topics: PreparedTopic[] = [];
  const addTarget = (id: string, topic: number): number => {
    let objectives: number[];
    let kind: "objective" | "module";
    if (id.startsWith("mref-")) {
      kind = "module";
      const m = index.moduleByLabel.get(id);
      const mod = m === undefined ? undefined : g.modules[m];
      objectives = (mod?.objectives ?? []).map((o) => localOfGlobal.get(o)).filter((x): x is number => x !== undefined);
    } else {
      kind = "objective";
      const li = local.get(id);
      objectives = li === undefined ? [] : [li];
    }
    targets.push({ id, kind, objectives, topic });
    return targets.length - 1;
  };
  let completion: CompletionBehavior = "all";
  if (body.topics?.length) {
    body.topics.forEach((t, ti) => {
      const idxs = t.targets.include.map((id) => addTarget(id, ti));
      topics.push({ id: t.id, targets: idxs, completion: t.targets.completion_behavior ?? "all" });
    });
  } else if (body.targets) {
    completion = body.targets.completion_behavior ?? "all";
    for (const id of body.targets.include) addTarget(id, -1);
  }
  const targetObjectives: number[] = [];
  const isTarget = new Array<boolean>(n).fill(false);
  for (const t of targets)
    for (const o of t.objectives)
      if (!isTarget[o]) {
        isTarget[o] = true;
        targetObjectives.push(o);
      }

  // Per target: the in-scope objectives it needs (its objectives and their in-scope ancestors), in
  // topological order; and which target objectives no other target needs (mastering those implies the rest).
  const neededBy = targets.map((t) => ancestorsOf(t.objectives, prereqs));
  const neededByOthers = new Array<boolean>(n).fill(false);
  for (const o of targetObjectives) for (const a of ancestorsOf([o], prereqs)) if (a !== o) neededByOthers[a] = true;
  const maximalTargets = targetObjectives.filter((o) => !neededByOthers[o]);

  const cc = body.completion_criteria ?? {};
  return {
    behavior: body.adaptive_behavior,
    minMastery: clampMastery(cc.min_predicted_mastery ?? DEFAULT_MIN_MASTERY),
    minWorkPerTarget: Math.max(0, Math.floor(cc.min_work_per_target ?? 0)),
    maxWork: cc.max_work_on_goal === undefined ? undefined : Math.max(0, cc.max_work_on_goal),
    completion,
    labels,
    local,
    prereqs,
    assess,
    instruct,
    targets,
    topics,
    targetObjectives,
    isTarget,
    neededBy,
    maximalTargets,
  };
}

/** The objectives and their in-scope ancestors, in topological (index) order. */
function ancestorsOf(objectives: readonly number[], prereqs: readonly number[][]): number[] {
  const seen = new Set<number>();
  const stack = [...objectives];
  while (stack.length) {
    const o = stack.pop()!;
    if (seen.has(o)) continue;
    seen.add(o);
    stack.push(...(prereqs[o] ?? []));
  }
  return [...seen].sort((a, b) => a - b);
}

function clampMastery(m: number): number {
  return Number.isFinite(m) ? Math.min(0.99, Math.max(0.01, m)) : DEFAULT_MIN_MASTERY;
}
