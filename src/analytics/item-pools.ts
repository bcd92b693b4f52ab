import type { GraphIndex } from "../graphs/runtime-graph";
import type { ItemEntry } from "../model";
import type { ItemPool } from "./calibration";
import { itemPool } from "./predicted-score";

/**
 * The item pool of each objective of a graph: the difficulties of its assessing atoms, as refined
 * online (item parameters), or undefined (the population pool) when none is known yet. Computed
 * per objective on first use.
 */
export function objectivePools(
  index: GraphIndex,
  items: Readonly<Record<string, ItemEntry>>,
  globalDifficulty: number,
): (objective: string) => ItemPool | undefined {
  const cache = new Map<string, ItemPool | undefined>();
  return (objective) => {
    if (!cache.has(objective)) {
      const k = index.objectiveByLabel.get(objective);
      const difficulties: number[] = [];
      for (const m of k === undefined ? [] : (index.graph.assessmentsByObjective[k] ?? [])) {
        const item = items[index.graph.modules[m]?.label ?? ""];
        if (item) difficulties.push(item[1]);
      }
      cache.set(objective, difficulties.length ? itemPool(difficulties, globalDifficulty) : undefined);
    }
    return cache.get(objective);
  };
}
