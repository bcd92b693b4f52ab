import { and, eq, isNotNull, lte } from "drizzle-orm";
import type { Db } from "../db/client";
import { deadLetters } from "../db/schema";
import type { Env } from "../env";
import { erasedAmong, fenceOf, isFenceRefusal, registrationOfMessage } from "../services/erasure/fence";

/** The queue a dead-letter queue collects for: `<queue>-dlq` -> `<queue>`. */
export const DEAD_LETTER_SUFFIX = "-dlq";

/** The names of the service's queues start with these (wrangler.toml; an environment may suffix them). */
export const QUEUE_PREFIX = { projections: "pathwise-projections", modelUpdates: "pathwise-model-updates", erasures: "pathwise-erasures" } as const;

/**
 * Consumer of the dead-letter queues: a message that exhausted its retries is recorded in D1
 * (`dead_letters`, with the queue it was meant for) and logged, so it is noticed and can be replayed
 * (`npm run --silent dead-letters -- replay`); never lost, never applied.
 */
export async function recordDeadLetters(batch: MessageBatch<unknown>, db: Db, nowMs = Date.now()): Promise<void> {
  const queue = batch.queue.slice(0, -DEAD_LETTER_SUFFIX.length);
  for (const m of batch.messages) {
    console.error(JSON.stringify({ dead_letter: m.id, queue, attempts: m.attempts }));
  }
  const rows = batch.messages.map((m) => {
    const body = carried(m.body);
    return {
      row: { id: m.id, queue, body: JSON.stringify(body), attempts: m.attempts, receivedAt: nowMs, replayRequestedAt: null },
      registration: registrationOfMessage(body),
    };
  });
  for (let i = 0; i < rows.length; i += 10) {
    const chunk = rows.slice(i, i + 10);
    try {
      await recordChunk(db, chunk);
    } catch (error) {
      if (!isFenceRefusal(error)) throw error;
      // A dead letter of an erased registration is dropped, never recorded (docs/privacy.md).
      const erased = await erasedAmong(
        db,
        chunk.flatMap((r) => (r.registration ? [r.registration] : [])),
      );
      const kept = chunk.filter((r) => !r.registration || !erased.has(r.registration));
      if (kept.length) await recordChunk(db, kept);
    }
  }
  batch.ackAll();
}

/** What a message carries: a text body is a message's JSON (the outbox's model updates, src/queues/messages.ts), recorded as the object. */
function carried(body: unknown): unknown {
  if (typeof body !== "string") return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Inserts the dead letters behind the erasure fence (src/services/erasure/fence.ts). */
async function recordChunk(db: Db, chunk: { row: typeof deadLetters.$inferInsert; registration?: string }[]): Promise<void> {
  const fence = await fenceOf(
    db,
    chunk.flatMap((r) => (r.registration ? [r.registration] : [])),
  );
  await db.batch([
    ...fence,
    db
      .insert(deadLetters)
      .values(chunk.map((r) => r.row))
      .onConflictDoNothing(),
  ]);
}

/** The producer binding of each queue whose dead letters may be replayed. */
function producerOf(env: Env, queue: string): Queue<unknown> | undefined {
  if (queue.startsWith(QUEUE_PREFIX.projections)) return env.PROJECTIONS as Queue<unknown>;
  if (queue.startsWith(QUEUE_PREFIX.modelUpdates)) return env.MODEL_UPDATES as Queue<unknown>;
  if (queue.startsWith(QUEUE_PREFIX.erasures)) return env.ERASURES as Queue<unknown>;
  return undefined;
}

/**
 * Scheduled (every minute): sends the dead letters an operator asked to replay back to their queue
 * and deletes them. The consumers are idempotent, so a replay never applies anything twice.
 */
export async function replayDeadLetters(env: Env, db: Db, nowMs = Date.now()): Promise<number> {
  const due = await db
    .select()
    .from(deadLetters)
    .where(and(isNotNull(deadLetters.replayRequestedAt), lte(deadLetters.replayRequestedAt, nowMs)))
    .limit(100)
    .all();
  let sent = 0;
  for (const row of due) {
    const producer = producerOf(env, row.queue);
    if (!producer) continue;
    await producer.send(JSON.parse(row.body));
    await db.delete(deadLetters).where(eq(deadLetters.id, row.id));
    sent++;
  }
  return sent;
}
