/** A small graph and goal for the policy tests (pure; plain Node). */
import { buildRuntimeGraph } from "../../../src/graphs/build-runtime-graph";
import type { GraphDocument } from "../../../src/graphs/graph-document";
import { type RemediationDepth, resolveGoalScope } from "../../../src/graphs/resolve-goal-scope";
import { type GraphIndex, indexGraph } from "../../../src/graphs/runtime-graph";
import { initialLearnerState, type LearnerState } from "../../../src/model";
import { SERVICE_PARAMS } from "../../../src/model/service-params";
import { applyTutoredEvent, type GoalBodyLike, initialTutorState, type PreparedGoal, prepareGoal, type TutorState } from "../../../src/policy";
import { modelGraphFor } from "../../../src/policy/model-graph";

/**
 * lref-a <- lref-b <- lref-c (target), lref-d (unrelated), or the prerequisites given. Each objective
 * has four assessment atoms mref-<o>1..4; lref-b and lref-c also have an instructional atom
 * mref-<o>-read.
 */
export function graph(prereq: Record<string, string[]> = { a: [], b: ["a"], c: ["b"], d: [] }): GraphIndex {
  const objectives = Object.keys(prereq);
  const modules: GraphDocument["modules"] = [];
  for (const o of objectives) {
    for (let i = 1; i <= 4; i++) modules.push({ id: `mref-${o}${i}`, name: `${o}${i}`, type: "assessment", learning_objectives: [`lref-${o}`] });
    if (o === "b" || o === "c") modules.push({ id: `mref-${o}-read`, name: `${o} read`, type: "instructional", learning_objectives: [`lref-${o}`] });
  }
  const doc: GraphDocument = {
    label: "gref-test",
    name: "Test",
    learning_objectives: objectives.map((o) => ({ id: `lref-${o}`, name: o, prerequisites: (prereq[o] ?? []).map((p) => `lref-${p}`) })),
    modules,
  };
  let u = 0;
  return indexGraph(buildRuntimeGraph(doc, { id: "g", version: 1, newUuid: () => `00000000-0000-4000-8000-${(u++).toString(16).padStart(12, "0")}` }));
}

export function goal(index: GraphIndex, body: Partial<GoalBodyLike> & { remediation?: RemediationDepth } = {}): PreparedGoal {
  const full: GoalBodyLike = {
    adaptive_behavior: body.adaptive_behavior ?? "practice",
    ...(body.topics ? { topics: body.topics } : { targets: body.targets ?? { include: ["lref-c"] } }),
    completion_criteria: body.completion_criteria ?? { min_predicted_mastery: 0.8 },
  };
  const ids = full.topics ? full.topics.flatMap((t) => t.targets.include) : (full.targets?.include ?? []);
  const r = resolveGoalScope(index, {
    targets: ids.map((id, i) => ({ id, path: `t${i}` })),
    remediationDepth: body.remediation ?? "one",
    include: [],
    exclude: [],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const g = index.graph;
  return prepareGoal(
    full,
    {
      targetObjectives: r.scope.targetObjectives.map((o) => g.objectives[o] as string),
      scopeObjectives: r.scope.objectives.map((o) => g.objectives[o] as string),
      scopeModules: r.scope.modules.map((m) => g.modules[m]!.label),
    },
    index,
  );
}

/** The learner event of an answer on `module` (ungraded when `correct` is undefined) at `timeMs`. */
export function eventFor(index: GraphIndex, module: string, correct: boolean | undefined, timeMs: number) {
  const m = index.graph.modules[index.moduleByLabel.get(module) as number];
  if (!m) throw new Error(`no module ${module}`);
  const objectives = m.objectives.map((o) => index.graph.objectives[o] as string);
  return correct === undefined
    ? { kind: "ungraded" as const, itemKey: module, objectives, timeMs }
    : { kind: "graded" as const, itemKey: module, objectives, correct, timeMs };
}

/** A learner: the learner state and tutor state the RegistrationObject keeps, and the events applied. */
export class Learner {
  state: LearnerState = initialLearnerState(SERVICE_PARAMS);
  tutor: TutorState = initialTutorState();
  readonly events: { module: string; correct?: boolean }[] = [];
  private t = Date.UTC(2026, 0, 5);
  constructor(readonly index: GraphIndex) {}

  answer(module: string, correct?: boolean): void {
    this.t += 30_000;
    applyTutoredEvent(this.state, this.tutor, SERVICE_PARAMS, modelGraphFor(this.index), eventFor(this.index, module, correct, this.t));
    this.events.push({ module, ...(correct === undefined ? {} : { correct }) });
  }

  /** Answers all four items of an objective `times` times over with the given outcome. */
  practise(objective: string, correct: boolean, times = 1): void {
    for (let r = 0; r < times; r++) for (let i = 1; i <= 4; i++) this.answer(`mref-${objective}${i}`, correct);
  }
}
