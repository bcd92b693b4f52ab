/**
 * Semantic validation of a graph document: pure, no I/O. Used by POST/PUT /v0/graphs (invalid →
 * 422 with these issues as details), by POST /v0/graphs/validate (the report itself) and by the
 * Content Inventory CLI (scripts/graph.ts). Every problem is reported at once, each with the JSON
 * path of the offending value, e.g. `body.modules[12].learning_objectives[0]`.
 */
import { GRAPH_ISSUES_MAX, GRAPH_LIMITS, type GraphCounts, type GraphDocument } from "./graph-document";
import type { RuntimeGraph } from "./runtime-graph";

export interface GraphIssue {
  path: string;
  message: string;
}

export interface GraphValidation {
  valid: boolean;
  errors: GraphIssue[];
  warnings: GraphIssue[];
  counts: GraphCounts;
}

export interface ValidateOptions {
  /** root of every path; "body" for the API */
  pathPrefix?: string;
  limits?: Partial<Record<keyof typeof GRAPH_LIMITS, number>>;
}

const ID_RULES = {
  graph: { prefix: "gref-", what: "graph label" },
  objective: { prefix: "lref-", what: "learning objective id" },
  module: { prefix: "mref-", what: "module id" },
  bundle: { prefix: "mref-", what: "bundle id" },
  taxon: { prefix: "tref-", what: "taxon id", spaces: true },
} as const;

/** Ids need their prefix; graph, objective and module ids (used in URLs and events) have no whitespace, taxon paths may have inner spaces. */
function prefixProblem(id: string, rule: { prefix: string; what: string; spaces?: boolean }): string | undefined {
  if (!id.startsWith(rule.prefix) || id.length === rule.prefix.length) {
    return `${rule.what} '${id}' must start with '${rule.prefix}' followed by at least one character`;
  }
  if (rule.spaces ? id !== id.trim() : /\s/.test(id)) {
    return `${rule.what} '${id}' must not contain ${rule.spaces ? "leading or trailing " : ""}whitespace`;
  }
  return undefined;
}

export function countGraph(doc: GraphDocument): GraphCounts {
  let prerequisites = 0;
  for (const o of doc.learning_objectives) prerequisites += o.prerequisites?.length ?? 0;
  let assessment = 0;
  let instructional = 0;
  for (const m of doc.modules) {
    if (m.type !== "instructional") assessment++;
    if (m.type !== "assessment") instructional++;
  }
  return {
    learning_objectives: doc.learning_objectives.length,
    prerequisites,
    modules: doc.modules.length,
    assessment_modules: assessment,
    instructional_modules: instructional,
    bundles: doc.bundles?.length ?? 0,
    taxa: doc.taxonomy?.length ?? 0,
  };
}

export function validateGraph(doc: GraphDocument, options: ValidateOptions = {}): GraphValidation {
  const root = options.pathPrefix ?? "body";
  const limits = { ...GRAPH_LIMITS, ...options.limits };
  // At most GRAPH_ISSUES_MAX of each are kept (the answer stays small whatever the document); the rest are counted.
  const errors: GraphIssue[] = [];
  const warnings: GraphIssue[] = [];
  let moreErrors = 0;
  let moreWarnings = 0;
  const error = (path: string, message: string) => {
    if (errors.length < GRAPH_ISSUES_MAX - 1) errors.push({ path: `${root}${path}`, message });
    else moreErrors++;
  };
  const warn = (path: string, message: string) => {
    if (warnings.length < GRAPH_ISSUES_MAX - 1) warnings.push({ path: `${root}${path}`, message });
    else moreWarnings++;
  };
  const notListed = (n: number, what: string) => ({ path: root, message: `${n} more ${what} not listed (at most ${GRAPH_ISSUES_MAX} per answer)` });
  const objectives = doc.learning_objectives;
  const modules = doc.modules;
  const bundles = doc.bundles ?? [];
  const taxonomy = doc.taxonomy ?? [];

  const labelProblem =
    prefixProblem(doc.label, ID_RULES.graph) ??
    (/[/?#%\\]/.test(doc.label) ? `graph label '${doc.label}' must not contain / ? # % or \\ (it is used in URL paths)` : undefined);
  if (labelProblem) error(".label", labelProblem);

  if (modules.length > limits.modules) {
    error(".modules", `a graph holds at most ${limits.modules} modules; this one has ${modules.length}`);
  }
  if (objectives.length > limits.learningObjectives) {
    error(".learning_objectives", `a graph holds at most ${limits.learningObjectives} learning objectives; this one has ${objectives.length}`);
  }
  if (bundles.length > limits.bundles) error(".bundles", `a graph holds at most ${limits.bundles} bundles; this one has ${bundles.length}`);
  if (taxonomy.length > limits.taxa) error(".taxonomy", `a graph holds at most ${limits.taxa} taxa; this one has ${taxonomy.length}`);

  // --- identifiers: prefixes and uniqueness ---
  const objectiveIndex = new Map<string, number>();
  objectives.forEach((o, i) => {
    const at = `.learning_objectives[${i}].id`;
    const problem = prefixProblem(o.id, ID_RULES.objective);
    if (problem) error(at, problem);
    const first = objectiveIndex.get(o.id);
    if (first !== undefined) error(at, `duplicate learning objective id '${o.id}' (first at ${root}.learning_objectives[${first}])`);
    else objectiveIndex.set(o.id, i);
  });

  const moduleIndex = new Map<string, number>();
  modules.forEach((m, i) => {
    const at = `.modules[${i}].id`;
    const problem = prefixProblem(m.id, ID_RULES.module);
    if (problem) error(at, problem);
    const first = moduleIndex.get(m.id);
    if (first !== undefined) error(at, `duplicate module id '${m.id}' (first at ${root}.modules[${first}])`);
    else moduleIndex.set(m.id, i);
  });

  const bundleIndex = new Map<string, number>();
  bundles.forEach((b, i) => {
    const at = `.bundles[${i}].id`;
    const problem = prefixProblem(b.id, ID_RULES.bundle);
    if (problem) error(at, problem);
    const asModule = moduleIndex.get(b.id);
    const first = bundleIndex.get(b.id);
    if (asModule !== undefined) error(at, `duplicate module id '${b.id}': bundle ids share the module namespace (first at ${root}.modules[${asModule}])`);
    else if (first !== undefined) error(at, `duplicate bundle id '${b.id}' (first at ${root}.bundles[${first}])`);
    else bundleIndex.set(b.id, i);
  });

  const taxonIndex = new Map<string, number>();
  taxonomy.forEach((t, i) => {
    const at = `.taxonomy[${i}].id`;
    const problem = prefixProblem(t.id, ID_RULES.taxon);
    if (problem) error(at, problem);
    const first = taxonIndex.get(t.id);
    if (first !== undefined) error(at, `duplicate taxon id '${t.id}' (first at ${root}.taxonomy[${first}])`);
    else taxonIndex.set(t.id, i);
  });

  const unknownObjective = (ref: string) =>
    `unknown learning objective '${ref}'${ref.startsWith("lref-") ? "" : " (learning objective ids start with 'lref-')"}`;

  // --- prerequisites ---
  objectives.forEach((o, i) => {
    const seen = new Set<string>();
    (o.prerequisites ?? []).forEach((ref, j) => {
      const at = `.learning_objectives[${i}].prerequisites[${j}]`;
      if (!objectiveIndex.has(ref)) error(at, unknownObjective(ref));
      else if (seen.has(ref)) warn(at, `prerequisite '${ref}' is listed twice`);
      seen.add(ref);
    });
  });

  // --- module alignment ---
  const atomsPerObjective = new Array<number>(objectives.length).fill(0);
  const assessmentsPerObjective = new Array<number>(objectives.length).fill(0);
  modules.forEach((m, i) => {
    if (m.learning_objectives.length === 0) {
      error(`.modules[${i}].learning_objectives`, `module '${m.id}' is aligned to no learning objective; align it to at least one`);
    }
    const seen = new Set<string>();
    m.learning_objectives.forEach((ref, j) => {
      const at = `.modules[${i}].learning_objectives[${j}]`;
      const o = objectiveIndex.get(ref);
      if (o === undefined) {
        error(at, unknownObjective(ref));
      } else if (seen.has(ref)) {
        warn(at, `learning objective '${ref}' is listed twice`);
      } else {
        atomsPerObjective[o]!++;
        if (m.type !== "instructional") assessmentsPerObjective[o]!++;
      }
      seen.add(ref);
    });
  });

  // --- bundles ---
  bundles.forEach((b, i) => {
    if (b.modules.length === 0) error(`.bundles[${i}].modules`, `bundle '${b.id}' contains no modules`);
    const seen = new Set<string>();
    b.modules.forEach((ref, j) => {
      const at = `.bundles[${i}].modules[${j}]`;
      if (bundleIndex.has(ref)) error(at, `bundle '${b.id}' contains bundle '${ref}'; bundles may contain atoms only`);
      else if (!moduleIndex.has(ref)) error(at, `unknown module '${ref}': bundle members must be atoms listed in modules`);
      else if (seen.has(ref)) warn(at, `module '${ref}' is listed twice`);
      seen.add(ref);
    });
  });

  // --- taxonomy ---
  taxonomy.forEach((t, i) => {
    if (t.modules.length === 0) warn(`.taxonomy[${i}].modules`, `taxon '${t.id}' contains no modules`);
    t.modules.forEach((ref, j) => {
      if (!moduleIndex.has(ref) && !bundleIndex.has(ref)) error(`.taxonomy[${i}].modules[${j}]`, `unknown module '${ref}'`);
    });
  });

  // --- prerequisite cycles ---
  for (const cycle of findCycles(doc, objectiveIndex)) {
    const [from, to] = [cycle[0]!, cycle[1 % cycle.length]!];
    const j = (objectives[from]!.prerequisites ?? []).indexOf(objectives[to]!.id);
    const names = [...cycle, cycle[0]!].map((k) => objectives[k]!.id).join(" -> ");
    error(`.learning_objectives[${from}].prerequisites[${j}]`, `prerequisite cycle: ${names} (each requires the next); remove one of these prerequisites`);
  }

  // --- warnings on coverage ---
  objectives.forEach((o, i) => {
    if (objectiveIndex.get(o.id) !== i) return;
    if (atomsPerObjective[i] === 0) warn(`.learning_objectives[${i}]`, `learning objective '${o.id}' has no aligned modules`);
    else if (assessmentsPerObjective[i] === 0) {
      warn(`.learning_objectives[${i}]`, `learning objective '${o.id}' has no assessing module; mastery cannot be measured`);
    }
  });

  if (moreErrors) errors.push(notListed(moreErrors, "errors"));
  if (moreWarnings) warnings.push(notListed(moreWarnings, "warnings"));
  return { valid: errors.length === 0, errors, warnings, counts: countGraph(doc) };
}

/**
 * One cycle (objective indices, each requiring the next, the last requiring the first) per
 * strongly connected component of the prerequisite relation that has one. Iterative Tarjan.
 */
function findCycles(doc: GraphDocument, objectiveIndex: Map<string, number>): number[][] {
  const n = doc.learning_objectives.length;
  const adjacency: number[][] = doc.learning_objectives.map((o, i) => {
    if (objectiveIndex.get(o.id) !== i) return [];
    const out: number[] = [];
    for (const ref of o.prerequisites ?? []) {
      const k = objectiveIndex.get(ref);
      if (k !== undefined && !out.includes(k)) out.push(k);
    }
    return out;
  });
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const cycles: number[][] = [];
  let counter = 0;
  for (let start = 0; start < n; start++) {
    if (index[start] !== -1) continue;
    const work: [number, number][] = [[start, 0]];
    while (work.length) {
      const frame = work[work.length - 1]!;
      const [v, edge] = frame;
      if (edge === 0) {
        index[v] = low[v] = counter++;
        stack.push(v);
        onStack[v] = 1;
      }
      const next = adjacency[v]![edge];
      if (next !== undefined) {
        frame[1] = edge + 1;
        if (index[next] === -1) work.push([next, 0]);
        else if (onStack[next]) low[v] = Math.min(low[v]!, index[next]!);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent[0]] = Math.min(low[parent[0]]!, low[v]!);
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || adjacency[v]!.includes(v)) cycles.push(cycleWithin(component, adjacency));
      }
    }
  }
  return cycles.sort((a, b) => a[0]! - b[0]!);
}

/** Walks prerequisite edges inside a strongly connected component until a node repeats. */
function cycleWithin(component: number[], adjacency: number[][]): number[] {
  const members = new Set(component);
  const start = Math.min(...component);
  const path: number[] = [];
  const position = new Map<number, number>();
  let v = start;
  while (!position.has(v)) {
    position.set(v, path.length);
    path.push(v);
    v = adjacency[v]!.find((w) => members.has(w))!;
  }
  const cycle = path.slice(position.get(v)!);
  // start the reported cycle at its first objective in document order
  const first = cycle.indexOf(Math.min(...cycle));
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}

/**
 * Objective and module ids (bundles included) of the previous version missing from the new
 * document: an update may add and rename, never remove (decisions.md).
 */
export function removedIds(previous: { objectives: readonly string[]; modules: readonly string[] }, doc: GraphDocument, pathPrefix = "body"): GraphIssue[] {
  const objectiveIds = new Set(doc.learning_objectives.map((o) => o.id));
  const moduleIds = new Set([...doc.modules.map((m) => m.id), ...(doc.bundles ?? []).map((b) => b.id)]);
  const issues: GraphIssue[] = [];
  for (const id of previous.objectives) {
    if (!objectiveIds.has(id))
      issues.push({
        path: `${pathPrefix}.learning_objectives`,
        message: `learning objective '${id}' was removed; an update must keep every existing objective id`,
      });
  }
  for (const id of previous.modules) {
    if (!moduleIds.has(id))
      issues.push({ path: `${pathPrefix}.modules`, message: `module '${id}' was removed; an update must keep every existing module and bundle id` });
  }
  return issues;
}

/**
 * Everything an update (PUT /v0/graphs/{graph_id}) may not do to the ids of the previous version
 * (decisions.md: "additions and renames only"): remove an objective, module, bundle or taxon
 * (`removedIds`, plus taxa here), or, for an id it keeps, take something away or change its kind:
 * - an objective losing a prerequisite;
 * - an atom losing an aligned objective, or changing its `type`;
 * - an atom becoming a bundle or a bundle an atom;
 * - a bundle losing a member; a taxon losing a module.
 * Gaining prerequisites, alignments, members or taxon modules, new ids, and new names are allowed.
 * A lost reference to an id that was itself removed is not repeated (the removal is reported).
 * `previous` is the runtime form of the current version; `doc` must be valid (validateGraph).
 */
export function nonAdditiveChanges(previous: RuntimeGraph, doc: GraphDocument, pathPrefix = "body"): GraphIssue[] {
  const issues = removedIds({ objectives: previous.objectives, modules: previous.modules.map((m) => m.label) }, doc, pathPrefix);
  const objectiveIds = new Set(doc.learning_objectives.map((o) => o.id));
  const docIds = new Set<string>([...doc.modules.map((m) => m.id), ...(doc.bundles ?? []).map((b) => b.id)]);
  const objectiveLabel = (i: number) => previous.objectives[i]!;
  const moduleLabel = (i: number) => previous.modules[i]!.label;
  const lost = (before: string[], now: readonly string[] | undefined, stillExists: Set<string>) => {
    const kept = new Set(now ?? []);
    return before.filter((id) => !kept.has(id) && stillExists.has(id));
  };
  const list = (ids: string[]) => ids.map((id) => `'${id}'`).join(", ");

  const previousObjective = new Map(previous.objectives.map((label, i) => [label, i]));
  doc.learning_objectives.forEach((o, i) => {
    const k = previousObjective.get(o.id);
    if (k === undefined) return;
    const gone = lost(previous.prerequisites[k]!.map(objectiveLabel), o.prerequisites, objectiveIds);
    if (gone.length) {
      issues.push({
        path: `${pathPrefix}.learning_objectives[${i}].prerequisites`,
        message: `learning objective '${o.id}' lost prerequisite(s) ${list(gone)}; an update may add prerequisites, never remove them`,
      });
    }
  });

  const previousModule = new Map(previous.modules.map((m, _i) => [m.label, m]));
  doc.modules.forEach((m, i) => {
    const before = previousModule.get(m.id);
    if (!before) return;
    const path = `${pathPrefix}.modules[${i}]`;
    if (!before.atom) {
      issues.push({ path, message: `'${m.id}' was a bundle and is now a module; an update cannot turn a bundle into a module` });
      return;
    }
    if (before.type !== m.type) {
      issues.push({ path: `${path}.type`, message: `module '${m.id}' changed type from '${before.type}' to '${m.type}'; a module's type cannot change` });
    }
    const gone = lost(before.objectives.map(objectiveLabel), m.learning_objectives, objectiveIds);
    if (gone.length) {
      issues.push({
        path: `${path}.learning_objectives`,
        message: `module '${m.id}' lost aligned learning objective(s) ${list(gone)}; an update may add alignments, never remove them`,
      });
    }
  });
  (doc.bundles ?? []).forEach((b, i) => {
    const before = previousModule.get(b.id);
    if (!before) return;
    const path = `${pathPrefix}.bundles[${i}]`;
    if (before.atom) {
      issues.push({ path, message: `'${b.id}' was a module and is now a bundle; an update cannot turn a module into a bundle` });
      return;
    }
    const gone = lost(before.members.map(moduleLabel), b.modules, docIds);
    if (gone.length) {
      issues.push({ path: `${path}.modules`, message: `bundle '${b.id}' lost member(s) ${list(gone)}; an update may add members, never remove them` });
    }
  });

  const taxa = new Map((doc.taxonomy ?? []).map((t, i) => [t.id, { t, i }]));
  for (const before of previous.taxonomy) {
    const now = taxa.get(before.id);
    if (!now) {
      issues.push({ path: `${pathPrefix}.taxonomy`, message: `taxon '${before.id}' was removed; an update must keep every existing taxon` });
      continue;
    }
    const gone = lost(before.modules.map(moduleLabel), now.t.modules, docIds);
    if (gone.length) {
      issues.push({
        path: `${pathPrefix}.taxonomy[${now.i}].modules`,
        message: `taxon '${before.id}' lost module(s) ${list(gone)}; an update may add modules to a taxon, never remove them`,
      });
    }
  }
  return issues;
}
