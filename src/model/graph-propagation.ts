/**
 * Prerequisite graph: evidence on an objective shifts its prerequisites and dependents by a damped
 * fraction of its own mean shift (one hop), and shares part of the variance reduction.
 * Success is strong evidence for prerequisites; failure is strong evidence against dependents.
 */
import { type LearnerState, objectiveOf } from "./learner-state";
import type { ModelParams } from "./params";

export interface PrereqGraph {
  /** objective -> its prerequisites */
  prerequisites: Record<string, string[]>;
  /** objective -> objectives that list it as a prerequisite */
  dependents: Record<string, string[]>;
}

/** Builds the (plain JSON) graph from an objective -> prerequisites map. Deterministic order. */
export function buildGraph(prerequisites: Record<string, readonly string[]>): PrereqGraph {
  const pre: Record<string, string[]> = {};
  const dep: Record<string, string[]> = {};
  for (const k of Object.keys(prerequisites).sort()) {
    const list = [...new Set(prerequisites[k] ?? [])].filter((p) => p !== k).sort();
    pre[k] = list;
    for (const p of list) {
      dep[p] ??= [];
      dep[p].push(k);
    }
  }
  for (const p of Object.keys(dep)) dep[p]?.sort();
  return { prerequisites: pre, dependents: dep };
}

export interface ObjectiveShift {
  objective: string;
  /** Change of the objective's mean caused by the evidence. */
  dMu: number;
  /** Posterior variance / prior variance of the objective for this evidence (in (0, 1]). */
  varRatio: number;
}

/** Applies one hop of propagation for the given shifts; objectives in `exclude` are left alone. */
export function propagate(state: LearnerState, params: ModelParams, graph: PrereqGraph, shifts: readonly ObjectiveShift[], exclude: ReadonlySet<string>): void {
  const { strong, weak } = params.graph;
  const pv = params.filter.priorVarObjective;
  const push = (target: string, f: number, s: ObjectiveShift): void => {
    if (exclude.has(target) || f <= 0) return;
    const o = objectiveOf(state, target, pv);
    o.mu += f * s.dMu;
    o.v *= 1 - f * (1 - s.varRatio);
  };
  for (const s of shifts) {
    if (s.dMu === 0) continue;
    for (const p of graph.prerequisites[s.objective] ?? []) push(p, s.dMu > 0 ? strong : weak, s);
    for (const d of graph.dependents[s.objective] ?? []) push(d, s.dMu < 0 ? strong : weak, s);
  }
}
