import { sql } from "drizzle-orm";
import { type AccountGraphProjection, applyProjectionMessage, type ProjectionMessage, parseProjectionMessage } from "../analytics";
import type { Db } from "../db/client";
import { multiRowInsert, type RawStatement, runBatch } from "../db/raw-statements";
import { accountProjections } from "../db/schema";
import { erasedAmong, fenceStatement, isFenceRefusal } from "../services/erasure/fence";

/**
 * Consumer of the projections queue: merges each registration's projection messages into one D1 row
 * per (account, graph) (src/analytics/projection.ts: the merge is a join, so at-least-once and
 * out-of-order delivery give the same row). Bounded work per batch: one read of every row the batch
 * touches, one D1 batch of compare-and-set writes. A row written concurrently (its revision moved)
 * leaves its messages to be retried; a malformed message is retried and, after the configured
 * retries, goes to the dead-letter queue.
 */
export async function consumeProjections(batch: MessageBatch<unknown>, db: Db, nowMs = Date.now()): Promise<void> {
  const byRow = new Map<string, { accountId: string; graphId: string; messages: { message: Message<unknown>; body: ProjectionMessage }[] }>();
  for (const message of batch.messages) {
    let body: ProjectionMessage;
    try {
      body = parseProjectionMessage(message.body);
    } catch (error) {
      console.error(JSON.stringify({ queue: batch.queue, message: message.id, attempts: message.attempts, error: String(error) }));
      message.retry();
      continue;
    }
    const key = `${body.graphId} ${body.accountId}`;
    let row = byRow.get(key);
    if (!row) {
      row = { accountId: body.accountId, graphId: body.graphId, messages: [] };
      byRow.set(key, row);
    }
    row.messages.push({ message, body });
  }
  if (byRow.size === 0) return;

  const keys = [...byRow.values()].map((r) => [r.graphId, r.accountId]);
  const stored = await db
    .select()
    .from(accountProjections)
    .where(sql`(${accountProjections.graphId}, ${accountProjections.accountId}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${JSON.stringify(keys)}))`)
    .all();
  const current = new Map(stored.map((r) => [`${r.graphId} ${r.accountId}`, r]));

  const rows = [...byRow.entries()];
  const writes = rows.map(([key, row]) => {
    const before = current.get(key);
    let merged: AccountGraphProjection | undefined = before?.body;
    for (const m of row.messages) merged = applyProjectionMessage(merged, m.body);
    return projectionWrite(row, merged as AccountGraphProjection, before?.revision, nowMs);
  });
  const registrations = rows.flatMap(([, row]) => row.messages.map((m) => m.body.registrationId));
  let results: D1Result[];
  try {
    // The fence first: a message of an erased registration fails the whole batch (src/services/erasure/fence.ts).
    results = (await runBatch(db.$client, [await fenceStatement(registrations), ...writes])).slice(1);
  } catch (error) {
    if (!isFenceRefusal(error)) throw error;
    // Drop the erased registrations' messages (docs/privacy.md); the others are applied on their next delivery.
    const erased = await erasedAmong(db, registrations);
    for (const [, row] of rows) for (const m of row.messages) erased.has(m.body.registrationId) ? m.message.ack() : m.message.retry({ delaySeconds: 0 });
    return;
  }
  rows.forEach(([, row], i) => {
    const written = (results[i]?.results.length ?? 0) > 0;
    for (const m of row.messages) {
      if (written) m.message.ack();
      else m.message.retry();
    }
  });
}

/** A row's first insert; a concurrent first insert wins and this one writes nothing (no row returned). */
const FIRST_INSERT = multiRowInsert(
  "account_projections",
  ["account_id", "graph_id", "body", "revision", "updated_at"],
  ' on conflict do nothing returning "account_id"',
)(1);

/**
 * The write of one (account, graph) row: an insert when none was read (a concurrent first insert
 * wins, and this one writes nothing), else a compare-and-set on the revision read. Each returns the
 * row's account id when it wrote. Raw statements (src/db/raw-statements.ts): the text drizzle wrote.
 */
export function projectionWrite(
  row: { accountId: string; graphId: string },
  body: AccountGraphProjection,
  readRevision: number | undefined,
  nowMs: number,
): RawStatement {
  const json = JSON.stringify(body);
  if (readRevision === undefined) {
    return {
      sql: FIRST_INSERT,
      params: [row.accountId, row.graphId, json, 1, nowMs],
    };
  }
  return {
    sql: 'update "account_projections" set "body" = ?, "revision" = ?, "updated_at" = ? where ("account_projections"."graph_id" = ? and "account_projections"."account_id" = ? and "account_projections"."revision" = ?) returning "account_id"',
    params: [json, readRevision + 1, nowMs, row.graphId, row.accountId, readRevision],
  };
}
