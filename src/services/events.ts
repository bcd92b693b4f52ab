import type { Env } from "../env";
import { ApiError, badRequest, serviceUnavailable } from "../errors";
import type { EventInput, IngestOutcome, IngestRequest } from "../objects/registration/rpc";
import type { ErrorDetail } from "../schemas/common";
import { registrationObject } from "./registrations";

/** Events may not be dated more than this far in the future (clock skew allowance). */
export const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

/** Refuses events dated in the future (400) and batches not in most-recent-first order (400). */
export function checkTimes(events: EventInput[], nowMs: number, newestFirst: boolean): void {
  const details: ErrorDetail[] = [];
  events.forEach((e, i) => {
    if (e.occurredAt > nowMs + FUTURE_TOLERANCE_MS) {
      details.push({
        path: e.path.replace(/module_id$/, e.kind === "recommendation-followed" ? "time_followed" : "interaction_end_time"),
        message: "more than 5 minutes in the future",
      });
    }
    const previous = events[i - 1];
    if (newestFirst && previous && e.occurredAt > previous.occurredAt) {
      details.push({ path: e.path.replace(/\.module_id$/, ""), message: "events must be sent most recent first (reverse chronological order)" });
    }
  });
  if (details.length) throw badRequest("The events' times are not acceptable; see details.", details);
}

/**
 * Hands the events to the registration's Durable Object, which answers a stored Idempotency-Key
 * first, then checks goals and modules and stores everything in one transaction. A failure of the
 * object (it threw, was reset, or could not be reached) is a 503 with Retry-After: its transaction
 * rolled back, or it committed and the answer was lost, so a retry with the same Idempotency-Key
 * stores the events exactly once.
 */
export async function ingestEvents(env: Env, request: IngestRequest): Promise<void> {
  let outcome: IngestOutcome;
  try {
    const stub = registrationObject(env, request.registrationId);
    outcome = await stub.ingest(request);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw serviceUnavailable(
      "The registration's event store failed while storing the events. Retry with the same Idempotency-Key: the events are then stored exactly once.",
      error,
    );
  }
  if (!outcome.ok) throw new ApiError(outcome.status, outcome.message, outcome.details);
}
