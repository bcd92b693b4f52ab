import { and, eq, isNull } from "drizzle-orm";
import { inList } from "../db/bound-list";
import type { Db } from "../db/client";
import { goals as goalsTable } from "../db/schema";
import type { Env } from "../env";
import { ApiError, badRequest, serviceUnavailable } from "../errors";
import type { EventInput, GoalRef, IngestOutcome, IngestRequest } from "../objects/registration/rpc";
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
 * The goal ids named that are not live goals of the learning instance, as error details (empty when
 * all are). Called by the RegistrationObject after its Idempotency-Key lookup, so a retry of a
 * stored request is answered before anything is checked against current data (docs/api-conventions.md "Events").
 */
export async function unknownGoals(db: Db, learningInstanceId: string, goals: GoalRef[]): Promise<ErrorDetail[]> {
  if (goals.length === 0) return [];
  const ids = [...new Set(goals.map((g) => g.goalId.toLowerCase()))];
  const known = new Set<string>();
  const rows = await db
    .select({ id: goalsTable.id })
    .from(goalsTable)
    .where(and(inList(goalsTable.id, ids), eq(goalsTable.learningInstanceId, learningInstanceId), isNull(goalsTable.deletedAt)))
    .all();
  for (const r of rows) known.add(r.id);
  return goals
    .filter((g) => !known.has(g.goalId.toLowerCase()))
    .map(({ goalId, path }) => ({ path, message: `'${goalId}' is not a goal of the registration's learning instance` }));
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
