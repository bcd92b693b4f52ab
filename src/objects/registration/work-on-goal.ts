import { findModule, type GraphIndex } from "../../graphs/runtime-graph";
import type { PreparedGoal } from "../../policy";
import { type EventLog, moduleObjectiveLabels } from "./event-log";
import type { GoalSpec } from "./rpc";

/**
 * The interactions spent on a goal with a `max_work_on_goal` (decisions.md "Learner-model outputs";
 * docs/goals.md): the graded and ungraded events that ended at or after the goal's assignment to the
 * registration, each counted as the share of its module's objectives the goal has in scope (as the
 * evidence counts work, src/tracing/evidence.ts). Work on the same objectives before the assignment
 * was not spent on this goal, though the model still reads it as evidence. Read from the event log,
 * as far back as its retention keeps it; undefined for a goal without a cap or an assignment time.
 */
export function workOnGoal(log: EventLog, graph: GraphIndex, spec: GoalSpec, goal: PreparedGoal): number | undefined {
  if (goal.maxWork === undefined || spec.assignedAt === undefined) return undefined;
  let work = 0;
  for (const label of log.modulesSince(spec.assignedAt)) {
    const module = findModule(graph, label);
    // the event's objectives as the tutor state took them (src/policy/tutor-state.ts: each distinct one a share)
    const objectives = new Set(module === undefined ? [] : moduleObjectiveLabels(graph, module));
    let inScope = 0;
    for (const o of objectives) if (goal.local.has(o)) inScope++;
    work += inScope / (objectives.size || 1);
  }
  return work;
}
