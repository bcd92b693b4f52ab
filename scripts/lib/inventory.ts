/**
 * Content Inventory CSV -> graph document (docs/graphs.md "Content Inventory CLI"). Pure: the CLI
 * (scripts/graph.ts) reads the files, this converts, src/graphs/validate-graph.ts validates, and
 * `explainIssue` turns a JSON-path issue back into "atoms.csv line 14 (mref-q17): ..." for the author.
 *
 * atoms.csv, one row per atom (header names are case-insensitive; aliases in brackets):
 *   atom_id [id, module_id], name [title], type (assessment | instructional | both),
 *   container [bundle, container_id, bundle_id] (optional: the bundle holding the atom),
 *   container_name (optional), learning_objective_ids [learning_objectives, objectives] (';'-separated),
 *   taxon_paths [taxonomy, taxa] (';'-separated paths such as TOC:Unit1|Section2), algorithmic (optional: true/false/yes/no/1/0)
 * prerequisites.csv: objective_id, prerequisite_id, objective_name (optional). A row with an empty
 *   prerequisite_id only declares (and names) an objective.
 *
 * Taxa: each path and each of its ancestors (TOC:Unit1|Section2 -> TOC:Unit1 and TOC:Unit1|Section2)
 * becomes a taxon `tref-<path>` holding the atoms filed under it; a path already starting with tref- is kept.
 */
import type { GraphBundle, GraphDocument, GraphModule, GraphObjective, GraphTaxon } from "../../src/graphs/graph-document";
import type { GraphIssue } from "../../src/graphs/graph-issues";
import type { ModuleType } from "../../src/graphs/runtime-graph";
import { type CsvRecord, parseCsv } from "./csv";

export interface Source {
  file: string;
  line: number;
  id: string;
}

export interface Problem {
  file: string;
  line?: number;
  message: string;
}

export interface InventoryInput {
  atomsCsv: string;
  prerequisitesCsv?: string;
  label: string;
  name: string;
  atomsFile?: string;
  prerequisitesFile?: string;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface SourceMap {
  objectives: Source[];
  /** per objective, the prerequisites.csv line of each prerequisite */
  prerequisiteLines: number[][];
  modules: Source[];
  bundles: Source[];
  /** per bundle, the atoms.csv line of each member */
  bundleMemberLines: number[][];
  taxonomy: Source[];
  taxonMemberLines: number[][];
  atomsFile: string;
  prerequisitesFile: string;
}

export interface InventoryResult {
  doc: GraphDocument;
  /** conversion errors (the document is not usable while there are any) */
  errors: Problem[];
  warnings: Problem[];
  sources: SourceMap;
}

const ATOM_COLUMNS = {
  id: ["atom_id", "id", "module_id", "atom"],
  name: ["name", "atom_name", "title"],
  type: ["type", "atom_type"],
  container: ["container", "bundle", "container_id", "bundle_id"],
  containerName: ["container_name", "bundle_name"],
  objectives: ["learning_objective_ids", "learning_objectives", "objectives", "objective_ids", "lo_ids"],
  taxa: ["taxon_paths", "taxonomy", "taxa", "taxons"],
  algorithmic: ["algorithmic"],
} as const;

const PREREQ_COLUMNS = {
  objective: ["objective_id", "learning_objective_id", "objective"],
  prerequisite: ["prerequisite_id", "prerequisite"],
  name: ["objective_name", "name"],
} as const;

const TYPES: Record<string, ModuleType> = {
  assessment: "assessment",
  assessing: "assessment",
  question: "assessment",
  instructional: "instructional",
  instruction: "instructional",
  both: "both",
};

const normalize = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
const splitList = (v: string | undefined) =>
  (v ?? "")
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean);

function columnsOf<K extends string>(header: CsvRecord | undefined, spec: Record<K, readonly string[]>): Record<K, number> {
  const names = (header?.fields ?? []).map(normalize);
  const out = {} as Record<K, number>;
  for (const key of Object.keys(spec) as K[]) out[key] = names.findIndex((n) => spec[key].includes(n));
  return out;
}

export function inventoryToGraph(input: InventoryInput): InventoryResult {
  const atomsFile = input.atomsFile ?? "atoms.csv";
  const prerequisitesFile = input.prerequisitesFile ?? "prerequisites.csv";
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const progress = input.onProgress ?? (() => {});

  const objectives: GraphObjective[] = [];
  const objectiveSources: Source[] = [];
  const prerequisiteLines: number[][] = [];
  const objectiveAt = new Map<string, number>();
  const named = new Set<string>();
  const declare = (id: string, file: string, line: number): number => {
    let k = objectiveAt.get(id);
    if (k === undefined) {
      k = objectives.length;
      objectiveAt.set(id, k);
      objectives.push({ id, name: id, prerequisites: [] });
      objectiveSources.push({ file, line, id });
      prerequisiteLines.push([]);
    }
    return k;
  };

  // --- prerequisites.csv ---
  if (input.prerequisitesCsv !== undefined) {
    const rows = safeParse(input.prerequisitesCsv, prerequisitesFile, errors);
    const cols = columnsOf(rows[0], PREREQ_COLUMNS);
    if (rows.length && (cols.objective < 0 || cols.prerequisite < 0)) {
      errors.push({
        file: prerequisitesFile,
        line: rows[0]!.line,
        message: "the header must name the columns objective_id and prerequisite_id (objective_name optional)",
      });
    } else {
      const pending: { k: number; prerequisite: string; line: number }[] = [];
      rows.slice(1).forEach((row, r) => {
        progress("prerequisites", r + 1, rows.length - 1);
        const id = (row.fields[cols.objective] ?? "").trim();
        const prerequisite = (row.fields[cols.prerequisite] ?? "").trim();
        const name = cols.name >= 0 ? (row.fields[cols.name] ?? "").trim() : "";
        if (!id) {
          errors.push({ file: prerequisitesFile, line: row.line, message: "objective_id is empty" });
          return;
        }
        const k = declare(id, prerequisitesFile, row.line);
        if (name) {
          if (named.has(id) && objectives[k]!.name !== name) {
            warnings.push({
              file: prerequisitesFile,
              line: row.line,
              message: `objective '${id}' is named '${objectives[k]!.name}' on an earlier row; keeping that name`,
            });
          } else {
            objectives[k]!.name = name;
            named.add(id);
          }
        }
        if (prerequisite) pending.push({ k, prerequisite, line: row.line });
      });
      for (const { k, prerequisite, line } of pending) {
        objectives[k]!.prerequisites!.push(prerequisite);
        prerequisiteLines[k]!.push(line);
      }
    }
  }

  // --- atoms.csv ---
  const modules: GraphModule[] = [];
  const moduleSources: Source[] = [];
  const bundles: GraphBundle[] = [];
  const bundleSources: Source[] = [];
  const bundleMemberLines: number[][] = [];
  const bundleAt = new Map<string, number>();
  const taxonomy: GraphTaxon[] = [];
  const taxonSources: Source[] = [];
  const taxonMemberLines: number[][] = [];
  const taxonAt = new Map<string, number>();

  const rows = safeParse(input.atomsCsv, atomsFile, errors);
  const cols = columnsOf(rows[0], ATOM_COLUMNS);
  const missing = (["id", "name", "type", "objectives"] as const).filter((k) => cols[k] < 0);
  if (!rows.length) errors.push({ file: atomsFile, message: "the file is empty" });
  else if (missing.length) {
    errors.push({
      file: atomsFile,
      line: rows[0]!.line,
      message: `the header lacks the column(s) ${missing.map((k) => ATOM_COLUMNS[k][0]).join(", ")} (found: ${rows[0]!.fields.join(", ")})`,
    });
  } else {
    const atomRows = rows.slice(1);
    atomRows.forEach((row, r) => {
      if (r % 250 === 0 || r === atomRows.length - 1) progress("atoms", r + 1, atomRows.length);
      const get = (k: keyof typeof ATOM_COLUMNS) => (cols[k] >= 0 ? (row.fields[cols[k]] ?? "").trim() : "");
      const id = get("id");
      if (!id) {
        errors.push({ file: atomsFile, line: row.line, message: "atom_id is empty" });
        return;
      }
      const rawType = get("type").toLowerCase();
      const type = TYPES[rawType];
      if (!type) {
        errors.push({ file: atomsFile, line: row.line, message: `${id}: type '${get("type")}' is not one of assessment, instructional, both` });
      }
      const algorithmicText = get("algorithmic").toLowerCase();
      const algorithmic = ["true", "yes", "1", "y"].includes(algorithmicText);
      if (algorithmicText && !algorithmic && !["false", "no", "0", "n"].includes(algorithmicText)) {
        errors.push({ file: atomsFile, line: row.line, message: `${id}: algorithmic '${get("algorithmic")}' is not true/false` });
      }
      const aligned = splitList(get("objectives"));
      for (const o of aligned) declare(o, atomsFile, row.line);
      const module: GraphModule = { id, name: get("name") || id, type: type ?? "assessment", learning_objectives: aligned };
      if (algorithmic) module.algorithmic = true;
      modules.push(module);
      moduleSources.push({ file: atomsFile, line: row.line, id });

      const container = get("container");
      if (container) {
        let b = bundleAt.get(container);
        if (b === undefined) {
          b = bundles.length;
          bundleAt.set(container, b);
          bundles.push({ id: container, name: get("containerName") || container, modules: [] });
          bundleSources.push({ file: atomsFile, line: row.line, id: container });
          bundleMemberLines.push([]);
        }
        bundles[b]!.modules.push(id);
        bundleMemberLines[b]!.push(row.line);
      }

      const filed = new Set<string>();
      for (const path of splitList(get("taxa"))) {
        const full = path.startsWith("tref-") ? path.slice(5) : path;
        const segments = full.split("|");
        for (let s = 1; s <= segments.length; s++) {
          const taxonId = `tref-${segments.slice(0, s).join("|")}`;
          if (filed.has(taxonId)) continue;
          filed.add(taxonId);
          let t = taxonAt.get(taxonId);
          if (t === undefined) {
            t = taxonomy.length;
            taxonAt.set(taxonId, t);
            taxonomy.push({ id: taxonId, name: segments[s - 1]!.replace(/^[^:]*:/, "") || segments[s - 1]!, modules: [] });
            taxonSources.push({ file: atomsFile, line: row.line, id: taxonId });
            taxonMemberLines.push([]);
          }
          taxonomy[t]!.modules.push(id);
          taxonMemberLines[t]!.push(row.line);
        }
      }
    });
  }

  for (const o of objectives) {
    if (!named.has(o.id) && input.prerequisitesCsv !== undefined) {
      const src = objectiveSources[objectiveAt.get(o.id)!]!;
      warnings.push({ file: src.file, line: src.line, message: `objective '${o.id}' has no name; add a row '${o.id},,<name>' to ${prerequisitesFile}` });
    }
  }

  const doc: GraphDocument = { label: input.label, name: input.name, learning_objectives: objectives, modules };
  if (bundles.length) doc.bundles = bundles;
  if (taxonomy.length) doc.taxonomy = taxonomy;
  return {
    doc,
    errors,
    warnings,
    sources: {
      objectives: objectiveSources,
      prerequisiteLines,
      modules: moduleSources,
      bundles: bundleSources,
      bundleMemberLines,
      taxonomy: taxonSources,
      taxonMemberLines,
      atomsFile,
      prerequisitesFile,
    },
  };
}

function safeParse(text: string, file: string, errors: Problem[]): CsvRecord[] {
  try {
    return parseCsv(text);
  } catch (err) {
    const line = (err as { line?: number }).line;
    errors.push({ file, line, message: `not valid CSV: ${(err as Error).message}` });
    return [];
  }
}

const PATH = /^[^.[]*\.(learning_objectives|modules|bundles|taxonomy|label|name)(?:\[(\d+)\])?(?:\.(\w+)(?:\[(\d+)\])?)?$/;

/** Where in the CSV files an issue of the validator (path rooted at any prefix) comes from. */
export function locateIssue(issue: GraphIssue, sources: SourceMap): Problem {
  const m = PATH.exec(issue.path);
  const message = issue.message.replace(/\(first at [^.[]*\.(modules|learning_objectives|bundles|taxonomy)\[(\d+)\]\)/, (_all, kind: string, i: string) => {
    const src = sourceOf(kind, Number(i), sources);
    return src ? `(first at ${src.file} line ${src.line})` : _all;
  });
  if (!m) return { file: "document", message: `${issue.path}: ${message}` };
  const [, kind, index, field, sub] = m;
  if (kind === "label" || kind === "name") return { file: "command line", message: `--${kind}: ${message}` };
  if (index === undefined) {
    const file = kind === "learning_objectives" ? sources.prerequisitesFile : sources.atomsFile;
    return { file, message };
  }
  const i = Number(index);
  const j = sub === undefined ? undefined : Number(sub);
  if (kind === "learning_objectives" && field === "prerequisites" && j !== undefined) {
    return { file: sources.prerequisitesFile, line: sources.prerequisiteLines[i]?.[j], message: `${sources.objectives[i]?.id}: ${message}` };
  }
  if (kind === "bundles" && field === "modules" && j !== undefined) {
    return { file: sources.atomsFile, line: sources.bundleMemberLines[i]?.[j], message: `container ${sources.bundles[i]?.id}: ${message}` };
  }
  if (kind === "taxonomy" && field === "modules" && j !== undefined) {
    return { file: sources.atomsFile, line: sources.taxonMemberLines[i]?.[j], message };
  }
  const src = sourceOf(kind!, i, sources);
  const subject = kind === "modules" ? "" : `${src?.id}: `;
  return { file: src?.file ?? "document", line: src?.line, message: `${subject}${message}` };
}

function sourceOf(kind: string, i: number, sources: SourceMap): Source | undefined {
  switch (kind) {
    case "learning_objectives":
      return sources.objectives[i];
    case "modules":
      return sources.modules[i];
    case "bundles":
      return sources.bundles[i];
    case "taxonomy":
      return sources.taxonomy[i];
  }
  return undefined;
}

export function formatProblem(p: Problem): string {
  return `${p.file}${p.line !== undefined ? ` line ${p.line}` : ""}: ${p.message}`;
}
