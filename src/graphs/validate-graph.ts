/**
 * Semantic validation of a graph document: pure, no I/O. Used by POST/PUT /v0/graphs (invalid →
 * 422 with these issues as details), by POST /v0/graphs/validate (the report itself) and by the
 * Content Inventory CLI (scripts/graph.ts). Every problem is reported at once, each with the JSON
 * path of the offending value, e.g. `body.modules[12].learning_objectives[0]`.
 */
import { GRAPH_LIMITS, type GraphCounts, type GraphDocument } from "./graph-document";
import { type GraphIssue, IssueCollector } from "./graph-issues";
import { findCycles } from "./prerequisite-cycles";

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
  const issues = new IssueCollector(options.pathPrefix ?? "body");
  checkLabelAndSize(doc, { ...GRAPH_LIMITS, ...options.limits }, issues);
  const ids = indexIds(doc, issues);
  checkPrerequisites(doc, ids, issues);
  const alignment = checkAlignment(doc, ids, issues);
  checkBundles(doc, ids, issues);
  checkTaxonomy(doc, ids, issues);
  checkCycles(doc, ids, issues);
  warnUncovered(doc, ids, alignment, issues);
  const { errors, warnings } = issues.finish();
  return { valid: errors.length === 0, errors, warnings, counts: countGraph(doc) };
}

function checkLabelAndSize(doc: GraphDocument, limits: Record<keyof typeof GRAPH_LIMITS, number>, issues: IssueCollector): void {
  const labelProblem =
    prefixProblem(doc.label, ID_RULES.graph) ??
    (/[/?#%\\]/.test(doc.label) ? `graph label '${doc.label}' must not contain / ? # % or \\ (it is used in URL paths)` : undefined);
  if (labelProblem) issues.error(".label", labelProblem);
  const sizes: [path: string, count: number, limit: number, what: string][] = [
    [".modules", doc.modules.length, limits.modules, "modules"],
    [".learning_objectives", doc.learning_objectives.length, limits.learningObjectives, "learning objectives"],
    [".bundles", doc.bundles?.length ?? 0, limits.bundles, "bundles"],
    [".taxonomy", doc.taxonomy?.length ?? 0, limits.taxa, "taxa"],
  ];
  for (const [path, count, limit, what] of sizes) {
    if (count > limit) issues.error(path, `a graph holds at most ${limit} ${what}; this one has ${count}`);
  }
}

/** Position of the first entry with each id, per list of the document. */
interface IdIndex {
  objectives: Map<string, number>;
  modules: Map<string, number>;
  bundles: Map<string, number>;
  taxa: Map<string, number>;
}

/**
 * Indexes the ids of one list, reporting a bad prefix and a repeated id (pointing at the first).
 * `clash` names an earlier namespace the id may not be in (bundles share the modules').
 */
function indexList(
  list: readonly { id: string }[],
  field: string,
  rule: (typeof ID_RULES)[keyof typeof ID_RULES],
  issues: IssueCollector,
  clash?: { ids: Map<string, number>; field: string; message: (id: string) => string },
): Map<string, number> {
  const index = new Map<string, number>();
  list.forEach((entry, i) => {
    const at = `.${field}[${i}].id`;
    const problem = prefixProblem(entry.id, rule);
    if (problem) issues.error(at, problem);
    const other = clash?.ids.get(entry.id);
    const first = index.get(entry.id);
    if (clash && other !== undefined) issues.error(at, `${clash.message(entry.id)} (first at ${issues.root}.${clash.field}[${other}])`);
    else if (first !== undefined) issues.error(at, `duplicate ${rule.what} '${entry.id}' (first at ${issues.root}.${field}[${first}])`);
    else index.set(entry.id, i);
  });
  return index;
}

function indexIds(doc: GraphDocument, issues: IssueCollector): IdIndex {
  const objectives = indexList(doc.learning_objectives, "learning_objectives", ID_RULES.objective, issues);
  const modules = indexList(doc.modules, "modules", ID_RULES.module, issues);
  const bundles = indexList(doc.bundles ?? [], "bundles", ID_RULES.bundle, issues, {
    ids: modules,
    field: "modules",
    message: (id) => `duplicate module id '${id}': bundle ids share the module namespace`,
  });
  const taxa = indexList(doc.taxonomy ?? [], "taxonomy", ID_RULES.taxon, issues);
  return { objectives, modules, bundles, taxa };
}

const unknownObjective = (ref: string) => `unknown learning objective '${ref}'${ref.startsWith("lref-") ? "" : " (learning objective ids start with 'lref-')"}`;

function checkPrerequisites(doc: GraphDocument, ids: IdIndex, issues: IssueCollector): void {
  doc.learning_objectives.forEach((o, i) => {
    const seen = new Set<string>();
    (o.prerequisites ?? []).forEach((ref, j) => {
      const at = `.learning_objectives[${i}].prerequisites[${j}]`;
      if (!ids.objectives.has(ref)) issues.error(at, unknownObjective(ref));
      else if (seen.has(ref)) issues.warn(at, `prerequisite '${ref}' is listed twice`);
      seen.add(ref);
    });
  });
}

/** Modules aligned to each objective (by document position): all of them, and those that assess. */
interface Alignment {
  atoms: number[];
  assessments: number[];
}

function checkAlignment(doc: GraphDocument, ids: IdIndex, issues: IssueCollector): Alignment {
  const atoms = new Array<number>(doc.learning_objectives.length).fill(0);
  const assessments = new Array<number>(doc.learning_objectives.length).fill(0);
  doc.modules.forEach((m, i) => {
    if (m.learning_objectives.length === 0) {
      issues.error(`.modules[${i}].learning_objectives`, `module '${m.id}' is aligned to no learning objective; align it to at least one`);
    }
    const seen = new Set<string>();
    m.learning_objectives.forEach((ref, j) => {
      const at = `.modules[${i}].learning_objectives[${j}]`;
      const o = ids.objectives.get(ref);
      if (o === undefined) {
        issues.error(at, unknownObjective(ref));
      } else if (seen.has(ref)) {
        issues.warn(at, `learning objective '${ref}' is listed twice`);
      } else {
        atoms[o]!++;
        if (m.type !== "instructional") assessments[o]!++;
      }
      seen.add(ref);
    });
  });
  return { atoms, assessments };
}

function checkBundles(doc: GraphDocument, ids: IdIndex, issues: IssueCollector): void {
  (doc.bundles ?? []).forEach((b, i) => {
    if (b.modules.length === 0) issues.error(`.bundles[${i}].modules`, `bundle '${b.id}' contains no modules`);
    const seen = new Set<string>();
    b.modules.forEach((ref, j) => {
      const at = `.bundles[${i}].modules[${j}]`;
      if (ids.bundles.has(ref)) issues.error(at, `bundle '${b.id}' contains bundle '${ref}'; bundles may contain atoms only`);
      else if (!ids.modules.has(ref)) issues.error(at, `unknown module '${ref}': bundle members must be atoms listed in modules`);
      else if (seen.has(ref)) issues.warn(at, `module '${ref}' is listed twice`);
      seen.add(ref);
    });
  });
}

function checkTaxonomy(doc: GraphDocument, ids: IdIndex, issues: IssueCollector): void {
  (doc.taxonomy ?? []).forEach((t, i) => {
    if (t.modules.length === 0) issues.warn(`.taxonomy[${i}].modules`, `taxon '${t.id}' contains no modules`);
    t.modules.forEach((ref, j) => {
      if (!ids.modules.has(ref) && !ids.bundles.has(ref)) issues.error(`.taxonomy[${i}].modules[${j}]`, `unknown module '${ref}'`);
    });
  });
}

function checkCycles(doc: GraphDocument, ids: IdIndex, issues: IssueCollector): void {
  const objectives = doc.learning_objectives;
  for (const cycle of findCycles(doc, ids.objectives)) {
    const [from, to] = [cycle[0]!, cycle[1 % cycle.length]!];
    const j = (objectives[from]!.prerequisites ?? []).indexOf(objectives[to]!.id);
    const names = [...cycle, cycle[0]!].map((k) => objectives[k]!.id).join(" -> ");
    issues.error(
      `.learning_objectives[${from}].prerequisites[${j}]`,
      `prerequisite cycle: ${names} (each requires the next); remove one of these prerequisites`,
    );
  }
}

function warnUncovered(doc: GraphDocument, ids: IdIndex, alignment: Alignment, issues: IssueCollector): void {
  doc.learning_objectives.forEach((o, i) => {
    if (ids.objectives.get(o.id) !== i) return;
    if (alignment.atoms[i] === 0) issues.warn(`.learning_objectives[${i}]`, `learning objective '${o.id}' has no aligned modules`);
    else if (alignment.assessments[i] === 0) {
      issues.warn(`.learning_objectives[${i}]`, `learning objective '${o.id}' has no assessing module; mastery cannot be measured`);
    }
  });
}
