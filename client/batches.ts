import type { components } from "./schema";

/** One event of a batch-events request (spec 4.6): `type` plus the fields of the single-event request. */
export type HistoryEvent = components["schemas"]["BatchEvents"]["events"][number];

/** Events per batch-events request (docs/api-conventions.md "Events"). */
export const MAX_BATCH_EVENTS = 500;

const timeOf = (e: HistoryEvent): number =>
  Date.parse("time_followed" in e && e.time_followed ? e.time_followed : (e as { interaction_end_time: string }).interaction_end_time);

/**
 * Splits a history (any order) into batch-events bodies' `events`: at most 500 each, every batch
 * most recent first (spec 4.6), and the batches in time order, oldest first, so the service applies
 * the learner's history in the order it happened (it applies batches in arrival order). Events with
 * equal times keep their given order relative to each other (reversed within a batch).
 */
export function eventBatches(events: readonly HistoryEvent[], max = MAX_BATCH_EVENTS): HistoryEvent[][] {
  const chronological = events.map((e, i) => ({ e, i, t: timeOf(e) })).sort((a, b) => a.t - b.t || a.i - b.i);
  const batches: HistoryEvent[][] = [];
  for (let start = 0; start < chronological.length; start += max) {
    batches.push(
      chronological
        .slice(start, start + max)
        .map((x) => x.e)
        .reverse(),
    );
  }
  return batches;
}

/**
 * An Idempotency-Key derived from the registration and the batch's content: resending the same
 * history (a retry, or the whole upload again after a crash) within 24 hours never counts twice.
 */
export async function idempotencyKeyOf(registrationId: string, body: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${registrationId}\n${JSON.stringify(body)}`));
  return `pw-batch-${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
