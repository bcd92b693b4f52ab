/**
 * The model-updates consumer's use case: queued graded answers refine a graph's stored item
 * parameters exactly once. Reading them back, per isolate, is src/reads/item-params.ts.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { type RawStatement, runBatch } from "../db/raw-statements";
import { appliedModelUpdates, itemParams } from "../db/schema";
import { type ModelParams, refineItem } from "../model";
import type { ItemObservation, ModelUpdateMessage } from "../queues/messages";
import { fenceStatement, registrationOfMessageId } from "./erasure/fence";
import { appliedMarkWrites, refinedItemWrites } from "./model-update-writes";
import { populationWrites } from "./population-rates";

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

  const writes: RawStatement[] = [];
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
    const refined = modules.flatMap((module) => {
      const e = params.items[module];
      return e ? [[module, e] as const] : [];
    });
    // Multi-row upserts (each module once: `modules` is a set), not one statement per module.
    writes.push(...refinedItemWrites(graphUuid, refined, nowMs));
  }
  const deltas = fresh.flatMap((m) => (m.population ? [{ graphUuid: m.graphUuid, delta: m.population }] : []));
  writes.push(...populationWrites(deltas, nowMs));
  const marks = appliedMarkWrites(
    fresh.map((m) => m.id),
    nowMs,
  );
  // One transaction: a concurrent consumer applying the same message fails on the primary key and retries;
  // a message of an erased registration fails it on the fence (./erasure/fence.ts).
  const fence = await fenceStatement(fresh.map((m) => registrationOfMessageId(m.id)));
  await runBatch(db.$client, [fence, ...marks, ...writes]);
  return fresh.length;
}
