import { and, eq, inArray } from "drizzle-orm";
import { objectivePools } from "../analytics";
import type { Db } from "../db/client";
import { appliedModelUpdates, itemParams } from "../db/schema";
import type { GraphIndex } from "../graphs/runtime-graph";
import { SharedValue } from "../lib/shared-value";
import { type ItemEntry, type ModelParams, refineItem } from "../model";
import { SERVICE_PARAMS } from "../model/service-params";
import type { ItemObservation, ModelUpdateMessage } from "../queues/messages";
import { fenceOf, registrationOfMessageId } from "./erasure/fence";
import { populationWrites } from "./population-rates";

/**
 * How long an isolate trusts its copy of a graph's item parameters before reading them again; one
 * caller re-reads while the others keep the copy for up to ITEM_PARAMS_REFRESH_MS more, so the
 * parameters in use are at most 55 s old (decisions.md "Freshness": at most 60 s behind).
 */
export const ITEM_PARAMS_TTL_MS = 45_000;
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

/**
 * Applies queued observations to the stored item parameters, and statistics deltas to their graph's
 * population sums (./population-rates.ts), exactly once per message: the message ids are recorded
 * in the same D1 batch (a transaction) as the writes.
 */
export async function applyModelUpdates(db: Db, base: ModelParams, messages: ModelUpdateMessage[], nowMs = Date.now()): Promise<number> {
  if (messages.length === 0) return 0;
  const ids = messages.map((m) => m.id);
  const seen = new Set<string>();
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({ id: appliedModelUpdates.messageId })
      .from(appliedModelUpdates)
      .where(inArray(appliedModelUpdates.messageId, ids.slice(i, i + 90)))
      .all();
    for (const r of rows) seen.add(r.id);
  }
  // A message not yet applied, once (a batch may hold a redelivery of the same message).
  const fresh = messages.filter((m) => {
    if (seen.has(m.id)) return false;
    seen.add(m.id);
    return true;
  });
  if (fresh.length === 0) return 0;

  const writes = [];
  const byGraph = new Map<string, ItemObservation[]>();
  for (const m of fresh) {
    if (m.observations.length === 0) continue;
    const list = byGraph.get(m.graphUuid) ?? [];
    list.push(...m.observations);
    byGraph.set(m.graphUuid, list);
  }
  for (const [graphUuid, observations] of byGraph) {
    const modules = [...new Set(observations.map((o) => o.module))];
    const params: ModelParams = { ...base, items: {} };
    for (let i = 0; i < modules.length; i += 90) {
      const rows = await db
        .select()
        .from(itemParams)
        .where(and(eq(itemParams.graphId, graphUuid), inArray(itemParams.module, modules.slice(i, i + 90))))
        .all();
      for (const r of rows) params.items[r.module] = [r.easiness, r.difficulty, r.observations, r.shift];
    }
    for (const o of observations) refineItem(params, { itemKey: o.module, objectives: o.objectives }, o.correct, o.predicted);
    for (const module of modules) {
      const e = params.items[module];
      if (!e) continue;
      const values = { easiness: e[0], difficulty: e[1], observations: e[2], shift: e[3], updatedAt: nowMs };
      writes.push(
        db
          .insert(itemParams)
          .values({ graphId: graphUuid, module, ...values })
          .onConflictDoUpdate({ target: [itemParams.graphId, itemParams.module], set: values }),
      );
    }
  }
  const deltas = fresh.flatMap((m) => (m.population ? [{ graphUuid: m.graphUuid, delta: m.population }] : []));
  writes.push(...populationWrites(db, deltas, nowMs));
  const marks = fresh.map((m) => db.insert(appliedModelUpdates).values({ messageId: m.id, appliedAt: nowMs }));
  // One transaction: a concurrent consumer applying the same message fails on the primary key and retries;
  // a message of an erased registration fails it on the fence (./erasure/fence.ts).
  const fence = await fenceOf(
    db,
    fresh.map((m) => registrationOfMessageId(m.id)),
  );
  await db.batch([...fence, ...marks, ...writes] as unknown as [(typeof marks)[number], ...(typeof marks)[number][]]);
  return fresh.length;
}
