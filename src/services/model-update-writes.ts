/**
 * The model-updates consumer's D1 writes besides the population sums (./population-rates.ts): the
 * refined item parameters and the applied-message marks, as raw multi-row statements (the text
 * drizzle wrote for them, built once per row count: src/db/raw-statements.ts).
 */
import { insertChunks } from "../db/bound-list";
import { multiRowInsert, type RawStatement } from "../db/raw-statements";
import type { ItemEntry } from "../model";

const ITEM_COLUMNS = ["graph_id", "module", "easiness", "difficulty", "observations", "shift", "updated_at"] as const;

/** An item's stored parameters replaced by the refined ones (the conflicting row's values). */
const itemUpsert = multiRowInsert(
  "item_params",
  ITEM_COLUMNS,
  ` on conflict ("item_params"."graph_id", "item_params"."module") do update set ${ITEM_COLUMNS.slice(2)
    .map((c) => `"${c}" = excluded.${c}`)
    .join(", ")}`,
);
const appliedMark = multiRowInsert("applied_model_updates", ["message_id", "applied_at"]);

/** Upserts of a graph's refined items (each module once), 7 bound values a row, as few statements as D1 allows. */
export function refinedItemWrites(graphUuid: string, refined: readonly (readonly [string, ItemEntry])[], nowMs: number): RawStatement[] {
  return insertChunks(refined, ITEM_COLUMNS.length).map((part) => ({
    sql: itemUpsert(part.length),
    params: part.flatMap(([module, e]) => [graphUuid, module, e[0], e[1], e[2], e[3], nowMs]),
  }));
}

/** The messages' applied marks (their primary key makes a message applied twice fail the batch). */
export function appliedMarkWrites(messageIds: readonly string[], nowMs: number): RawStatement[] {
  return insertChunks(messageIds, 2).map((part) => ({ sql: appliedMark(part.length), params: part.flatMap((id) => [id, nowMs]) }));
}
