/** The filter's difficulty tables (how they are estimated: rate-tables.ts, rasch-tables.ts) and the filter-only parameters built from them. */
import { FEATURE_NAMES, NUM_FEATURES } from "../features";
import { DEFAULT_GRAPH, type FilterParams, type ItemEntry, type ModelParams, type ObjectiveEntry } from "../params";

export interface DifficultyTables {
  items: Map<string, [difficulty: number, count: number]>;
  objectives: Map<string, number>;
  global: number;
}

export interface DifficultyConfig {
  method: "rasch" | "rates";
  raschItemPrecision: number;
  raschLearning: boolean;
  objectivePrior: number;
  itemPrior: number;
}

/** Parameters with the difficulties of `t`, the filter `filter` and every predictor weight at zero. */
export function filterOnlyParams(t: DifficultyTables, filter: FilterParams): ModelParams {
  const items: Record<string, ItemEntry> = {};
  for (const [k, [d, n]] of t.items) items[k] = [0, d, n, 0];
  const objectives: Record<string, ObjectiveEntry> = {};
  for (const [k, d] of t.objectives) objectives[k] = [0, 0, 0, d];
  return {
    version: 1,
    featureNames: [...FEATURE_NAMES],
    dense: new Array<number>(NUM_FEATURES).fill(0),
    items,
    objectives,
    globalDifficulty: t.global,
    filter,
    graph: { ...DEFAULT_GRAPH },
    refine: { step: 0.02, maxShift: 1 },
    meta: {},
  };
}
