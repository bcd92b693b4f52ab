/**
 * A graph's refined item parameters, read from D1 and shared by the isolate (the model-updates
 * consumer writes them: src/services/item-params.ts), and the item pools built from them.
 */
import { eq } from "drizzle-orm";
import { objectivePools } from "../analytics";
import type { Db } from "../db/client";
import { itemParams } from "../db/schema";
import type { GraphIndex } from "../graphs/runtime-graph";
import { SharedValue } from "../lib/shared-value";
import type { ItemEntry } from "../model";
import { SERVICE_PARAMS } from "../model/service-params";

/**
 * How long an isolate trusts its copy of a graph's item parameters before reading them again; one
 * caller re-reads while the others keep the copy for up to ITEM_PARAMS_REFRESH_MS more, so the
 * parameters in use are at most 35 s old. An answer reaches the stored parameters within 21 s (held
 * by its registration until the next contribution, at most 20 s: the settled graph's cadence,
 * src/reads/population-rates.ts; then the queue's 1 s batch timeout): 56 s in all
 * (docs/api-conventions.md "Freshness": at most 60 s behind).
 */
export const ITEM_PARAMS_TTL_MS = 25_000;
const ITEM_PARAMS_REFRESH_MS = 10_000;

/** Resolved values only (never a promise of a read another object or request started: src/lib/in-flight.ts). */
const cache = new SharedValue<Record<string, ItemEntry>>(ITEM_PARAMS_TTL_MS, ITEM_PARAMS_REFRESH_MS);

/** A graph's refined item parameters (module label -> model item entry), shared by the isolate (src/lib/shared-value.ts). */
export function loadItemParams(db: Db, graphUuid: string, nowMs = Date.now()): Promise<Record<string, ItemEntry>> {
  return cache.get(graphUuid, nowMs, async () => {
    const rows = await db.select().from(itemParams).where(eq(itemParams.graphId, graphUuid)).all();
    return Object.fromEntries(rows.map((r) => [r.module, [r.easiness, r.difficulty, r.observations, r.shift] as ItemEntry]));
  });
}

/**
 * The objectives' item pools of a graph version under a set of item parameters, kept as long as that
 * parameter set is the cached one (loadItemParams), so consecutive
 * requests do not rebuild the same pools. No staleness beyond the item parameters' own.
 */
const poolCache = new WeakMap<Readonly<Record<string, ItemEntry>>, { index: GraphIndex; pools: ReturnType<typeof objectivePools> }>();

export function itemPoolsFor(index: GraphIndex, items: Readonly<Record<string, ItemEntry>>): ReturnType<typeof objectivePools> {
  const hit = poolCache.get(items);
  if (hit?.index === index) return hit.pools;
  const pools = objectivePools(index, items, SERVICE_PARAMS.globalDifficulty);
  poolCache.set(items, { index, pools });
  return pools;
}

export function clearItemParamsCache(): void {
  cache.clear();
}
