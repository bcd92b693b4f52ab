/**
 * Resolves a scoped goal's targets and scope against one runtime graph into the set of
 * objectives and recommendable modules the goal covers. Pure: no I/O, no Workers APIs.
 *
 * Rules (docs/goals.md "The decided rules" and "Scope resolution", plus the choices noted here):
 * - Target objectives: the `lref-` targets themselves; for `mref-` targets, the objectives the
 *   target modules are aligned with.
 * - `remediation_depth` walks prerequisites from the target objectives: `none` = targets only,
 *   `one` = plus their direct prerequisites, `two` = plus theirs, `three` likewise, `maximum` =
 *   every transitive prerequisite.
 * - `scope.include` adds objectives (`lref-`) or modules (`mref-`; a bundle adds its atoms);
 *   `scope.exclude` removes them. A goal target cannot be excluded.
 * - Recommendable modules of an objective goal: the atoms aligned with any in-scope objective.
 *   Of a module goal: the target modules (bundles expanded to atoms), plus the atoms of the
 *   remedial objectives (in-scope objectives that are not target objectives, or that were
 *   explicitly included), so `none` recommends exactly the target modules.
 * - Then included modules are added and excluded modules removed.
 */
import type { GraphIndex } from "./runtime-graph";

export const REMEDIATION_DEPTHS = ["none", "one", "two", "three", "maximum"] as const;
export type RemediationDepth = (typeof REMEDIATION_DEPTHS)[number];

export const REMEDIATION_LEVELS: Record<RemediationDepth, number> = {
  none: 0,
  one: 1,
  two: 2,
  three: 3,
  maximum: Number.POSITIVE_INFINITY,
};

/** An id as the request gave it, with the request path to name in error details. */
export interface IdRef {
  id: string;
  path: string;
}

export interface GoalScopeInput {
  /** all `lref-` or all `mref-` (the schema checks that before this runs) */
  targets: IdRef[];
  remediationDepth: RemediationDepth;
  include: IdRef[];
  exclude: IdRef[];
}

export interface ResolvedGoalScope {
  targetKind: "objective" | "module";
  /** objective targets, or the objectives the module targets are aligned with (sorted indices) */
  targetObjectives: number[];
  /** module targets as given (may be bundles), sorted; [] for objective goals */
  targetModules: number[];
  /** in-scope objectives (sorted indices) */
  objectives: number[];
  /** recommendable atoms (sorted module indices) */
  modules: number[];
  /** prerequisite distance of each in-scope objective from the nearest target (0 = target); explicitly included objectives not reached by the walk get -1 */
  distance: Map<number, number>;
}

export interface ScopeProblem {
  path: string;
  message: string;
}

export type GoalScopeResult = { ok: true; scope: ResolvedGoalScope } | { ok: false; problems: ScopeProblem[] };

const isObjectiveRef = (id: string) => id.startsWith("lref-");

export function resolveGoalScope(index: GraphIndex, input: GoalScopeInput): GoalScopeResult {
  const { graph } = index;
  const problems: ScopeProblem[] = [];

  const lookup = (ref: IdRef): { kind: "objective" | "module"; index: number } | undefined => {
    if (isObjectiveRef(ref.id)) {
      const i = index.objectiveByLabel.get(ref.id);
      if (i === undefined) problems.push({ path: ref.path, message: `unknown learning objective '${ref.id}' in the learning instance's graph` });
      return i === undefined ? undefined : { kind: "objective", index: i };
    }
    const i = index.moduleByLabel.get(ref.id);
    if (i === undefined) problems.push({ path: ref.path, message: `unknown module '${ref.id}' in the learning instance's graph` });
    return i === undefined ? undefined : { kind: "module", index: i };
  };

  const targetKind: "objective" | "module" = input.targets.every((t) => isObjectiveRef(t.id)) ? "objective" : "module";
  const targets = input.targets.map((ref) => ({ ref, hit: lookup(ref) }));
  const includes = input.include.map((ref) => ({ ref, hit: lookup(ref) }));
  const excludes = input.exclude.map((ref) => ({ ref, hit: lookup(ref) }));
  if (problems.length) return { ok: false, problems };

  const atomsOf = (m: number): number[] => {
    const mod = graph.modules[m];
    if (!mod) return [];
    return mod.atom ? [m] : mod.members.filter((a) => graph.modules[a]?.atom);
  };

  // Target objectives and modules.
  const targetObjectives = new Set<number>();
  const targetModules = new Set<number>();
  for (const { hit } of targets) {
    if (!hit) continue;
    if (hit.kind === "objective") targetObjectives.add(hit.index);
    else {
      targetModules.add(hit.index);
      for (const o of graph.modules[hit.index]?.objectives ?? []) targetObjectives.add(o);
    }
  }

  // Excluding a target is refused.
  for (const { ref, hit } of excludes) {
    if (!hit) continue;
    if (
      (hit.kind === "objective" && targetKind === "objective" && targetObjectives.has(hit.index)) ||
      (hit.kind === "module" && targetModules.has(hit.index))
    ) {
      problems.push({ path: ref.path, message: `'${ref.id}' is a goal target and cannot be excluded from the scope` });
    }
  }
  if (problems.length) return { ok: false, problems };

  // Breadth-first walk down the prerequisites, at most `levels` hops.
  const levels = REMEDIATION_LEVELS[input.remediationDepth];
  const distance = new Map<number, number>();
  let frontier = [...targetObjectives].sort((a, b) => a - b);
  for (const o of frontier) distance.set(o, 0);
  for (let level = 1; level <= levels && frontier.length; level++) {
    const next: number[] = [];
    for (const o of frontier) {
      for (const p of graph.prerequisites[o] ?? []) {
        if (!distance.has(p)) {
          distance.set(p, level);
          next.push(p);
        }
      }
    }
    frontier = next;
  }

  const includedObjectives = new Set<number>();
  const includedModules = new Set<number>();
  for (const { hit } of includes) {
    if (!hit) continue;
    if (hit.kind === "objective") includedObjectives.add(hit.index);
    else for (const a of atomsOf(hit.index)) includedModules.add(a);
  }
  const excludedObjectives = new Set<number>();
  const excludedModules = new Set<number>();
  for (const { hit } of excludes) {
    if (!hit) continue;
    if (hit.kind === "objective") excludedObjectives.add(hit.index);
    else for (const a of atomsOf(hit.index)) excludedModules.add(a);
  }

  for (const o of includedObjectives) if (!distance.has(o)) distance.set(o, -1);
  for (const o of excludedObjectives) distance.delete(o);
  const objectives = new Set(distance.keys());

  // Objectives whose aligned atoms are recommendable.
  const contentObjectives = new Set<number>();
  for (const o of objectives) {
    if (targetKind === "objective" || !targetObjectives.has(o) || includedObjectives.has(o)) contentObjectives.add(o);
  }

  const modules = new Set<number>();
  if (targetKind === "module") for (const m of targetModules) for (const a of atomsOf(m)) modules.add(a);
  // The atoms aligned with an objective are its assessing plus its instructional atoms (a `both`
  // atom is in both lists): no scan of every module.
  for (const o of contentObjectives) {
    for (const a of graph.assessmentsByObjective[o] ?? []) modules.add(a);
    for (const a of graph.instructionByObjective[o] ?? []) modules.add(a);
  }
  for (const m of includedModules) modules.add(m);
  for (const m of excludedModules) modules.delete(m);

  const sorted = (s: Iterable<number>) => [...s].sort((a, b) => a - b);
  return {
    ok: true,
    scope: {
      targetKind,
      targetObjectives: sorted(targetObjectives),
      targetModules: sorted(targetModules),
      objectives: sorted(objectives),
      modules: sorted(modules),
      distance,
    },
  };
}

/** The parts of a goal body that scope resolution reads (structural: this pure layer knows no API schemas). */
export interface GoalScopeBody {
  targets?: { include: readonly string[] };
  topics?: readonly { targets: { include: readonly string[] } }[];
  scope: { remediation_depth: RemediationDepth; include: readonly string[]; exclude: readonly string[] };
}

/** The resolution input of a goal body, each id with its request path (for error details). */
export function goalScopeInput(body: GoalScopeBody): GoalScopeInput {
  const targets: IdRef[] = body.targets
    ? body.targets.include.map((id, i) => ({ id, path: `body.targets.include[${i}]` }))
    : (body.topics ?? []).flatMap((t, ti) => t.targets.include.map((id, i) => ({ id, path: `body.topics[${ti}].targets.include[${i}]` })));
  return {
    targets,
    remediationDepth: body.scope.remediation_depth,
    include: body.scope.include.map((id, i) => ({ id, path: `body.scope.include[${i}]` })),
    exclude: body.scope.exclude.map((id, i) => ({ id, path: `body.scope.exclude[${i}]` })),
  };
}

/** A resolved scope as labels: what goals store and the policy reads. */
export interface ScopeLabels {
  /** target objectives (`lref-`): the targets themselves, or the objectives of the target modules */
  targetObjectives: string[];
  /** in-scope objectives (`lref-`) */
  scopeObjectives: string[];
  /** recommendable atoms (`mref-`) */
  scopeModules: string[];
}

export function scopeLabels(index: GraphIndex, scope: ResolvedGoalScope): ScopeLabels {
  const { graph } = index;
  const objectiveLabels = (xs: number[]) => xs.map((i) => graph.objectives[i] as string);
  return {
    targetObjectives: objectiveLabels(scope.targetObjectives),
    scopeObjectives: objectiveLabels(scope.objectives),
    scopeModules: scope.modules.map((i) => (graph.modules[i] as { label: string }).label),
  };
}
