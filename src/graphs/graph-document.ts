import type { ModuleType } from "./runtime-graph";

/**
 * The graph document a partner sends to POST/PUT /v0/graphs (decisions.md "Knowledge graphs").
 * Pure type: the zod schema in src/routes/graphs.schemas.ts checks the structure (400), and
 * src/graphs/validate-graph.ts checks the meaning (422 / the validate endpoint).
 */
export interface GraphObjective {
  id: string;
  name: string;
  prerequisites?: string[];
}

export interface GraphModule {
  id: string;
  name: string;
  type: ModuleType;
  learning_objectives: string[];
  algorithmic?: boolean;
}

export interface GraphBundle {
  id: string;
  name: string;
  modules: string[];
}

export interface GraphTaxon {
  id: string;
  name?: string;
  modules: string[];
}

export interface GraphDocument {
  label: string;
  name: string;
  learning_objectives: GraphObjective[];
  modules: GraphModule[];
  bundles?: GraphBundle[];
  taxonomy?: GraphTaxon[];
}

/** Per-graph limits (decisions.md). Beyond them the document is invalid. */
/** Errors (and warnings) a validation lists; the last entry then says how many more there were (docs/security.md "Limits"). */
export const GRAPH_ISSUES_MAX = 1_000;

export const GRAPH_LIMITS = {
  modules: 20_000,
  learningObjectives: 2_000,
  bundles: 20_000,
  taxa: 20_000,
} as const;

export interface GraphCounts {
  learning_objectives: number;
  prerequisites: number;
  modules: number;
  assessment_modules: number;
  instructional_modules: number;
  bundles: number;
  taxa: number;
}
