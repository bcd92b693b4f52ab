/**
 * The compact runtime form of one version of a knowledge graph: built once at ingest, stored,
 * and loaded (then cached in memory) by the Durable Objects and services that need it. Everything
 * is addressed by dense indices so a 20,000-module graph is a few arrays, not a web of objects.
 *
 * This file is the contract between graph ingest (producer) and its consumers (goals, events,
 * recommendations, analytics). Keep it free of Workers APIs.
 */
export type ModuleType = "assessment" | "instructional" | "both";

export interface RuntimeModule {
  /** partner label, `mref-...` */
  label: string;
  /** service-generated UUID (events accept either) */
  uuid: string;
  name: string;
  type: ModuleType;
  /** true for atoms (events are sent on atoms only), false for bundles */
  atom: boolean;
  /** aligned objective indices (for a bundle: the union of its atoms') */
  objectives: number[];
  /** for a bundle: its atoms' module indices; for an atom: [] */
  members: number[];
  algorithmic: boolean;
}

export interface RuntimeGraph {
  /** format version of this structure (bump when the shape changes; stored blobs carry it) */
  format: 1;
  id: string;
  label: string;
  name: string;
  /** graph document version (1, 2, ... additive updates) */
  version: number;
  /** objective labels (`lref-...`), indexed by objective index, in topological order (prerequisites first) */
  objectives: string[];
  objectiveNames: string[];
  /** direct prerequisites of each objective (objective indices) */
  prerequisites: number[][];
  /** direct dependents of each objective (inverse of prerequisites) */
  dependents: number[][];
  /** longest chain of transitive prerequisites below each objective (0 = no prerequisites) */
  depth: number[];
  modules: RuntimeModule[];
  /** per objective: assessing atoms (type assessment or both), module indices */
  assessmentsByObjective: number[][];
  /** per objective: instructional atoms (type instructional or both), module indices */
  instructionByObjective: number[][];
  /** table-of-contents taxa: `tref-...` id and its module indices */
  taxonomy: { id: string; modules: number[] }[];
}

/** Lookup maps derived from a RuntimeGraph once per load (never stored). */
export interface GraphIndex {
  graph: RuntimeGraph;
  moduleByLabel: Map<string, number>;
  moduleByUuid: Map<string, number>;
  objectiveByLabel: Map<string, number>;
}

export function indexGraph(graph: RuntimeGraph): GraphIndex {
  const moduleByLabel = new Map<string, number>();
  const moduleByUuid = new Map<string, number>();
  graph.modules.forEach((m, i) => {
    moduleByLabel.set(m.label, i);
    moduleByUuid.set(m.uuid.toLowerCase(), i);
  });
  const objectiveByLabel = new Map<string, number>();
  for (const [i, o] of graph.objectives.entries()) objectiveByLabel.set(o, i);
  return { graph, moduleByLabel, moduleByUuid, objectiveByLabel };
}

/** Module index for an `mref-` label or a module UUID, if the graph has it. */
export function findModule(index: GraphIndex, idOrUuid: string): number | undefined {
  return index.moduleByLabel.get(idOrUuid) ?? index.moduleByUuid.get(idOrUuid.toLowerCase());
}
