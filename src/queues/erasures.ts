import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { erasures } from "../db/schema";
import type { Env } from "../env";
import { advanceErasure } from "../services/erasure/job";
import { enqueueErasure } from "../services/erasure/queue";
import type { ErasureMessage } from "./messages";

/** Seconds before a failed erasure step is tried again. */
const RETRY_DELAY_SECONDS = 10;
/** A pending erasure that made no progress for this long is sent to the queue again by the scheduled handler. */
export const STALLED_AFTER_MS = 5 * 60_000;

/**
 * Consumer of the erasure queue (docs/privacy.md "Erasure"): each message advances one erasure
 * (src/services/erasure/job.ts) for a bounded time; an erasure with more to do is handed to a new
 * message before this one is acknowledged, so the job continues even if this invocation dies after
 * the send. A failed step is retried (the queue's retries, then its dead-letter queue); the erasure
 * stays `pending` throughout and `resumeStalledErasures` picks it up again.
 */
export async function consumeErasures(batch: MessageBatch<ErasureMessage>, env: Env, db: Db): Promise<void> {
  for (const message of batch.messages) {
    const erasureId = message.body?.erasure_id;
    if (typeof erasureId !== "string") {
      message.ack();
      continue;
    }
    try {
      if ((await advanceErasure(env, db, erasureId)) === "more") await env.ERASURES.send({ erasure_id: erasureId });
      message.ack();
    } catch (error) {
      console.error(JSON.stringify({ queue: batch.queue, erasure_id: erasureId, attempts: message.attempts, retry: true, error: String(error) }));
      message.retry({ delaySeconds: RETRY_DELAY_SECONDS });
    }
  }
}

/** Scheduled: pending erasures without progress for STALLED_AFTER_MS (a lost message, a dead-lettered one) go to the queue again. */
export async function resumeStalledErasures(env: Env, db: Db, nowMs = Date.now()): Promise<number> {
  const stalled = await db
    .select({ id: erasures.id })
    .from(erasures)
    .where(and(eq(erasures.status, "pending"), lt(erasures.updatedAt, nowMs - STALLED_AFTER_MS)))
    .limit(100)
    .all();
  for (const { id } of stalled) {
    await db.update(erasures).set({ updatedAt: nowMs }).where(eq(erasures.id, id));
    await enqueueErasure(env, id);
  }
  return stalled.length;
}
