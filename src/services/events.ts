import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { goals as goalsTable, type RegistrationRow } from "../db/schema";
import type { Env } from "../env";
import { badRequest, unprocessable } from "../http/errors";
import type { EventInput, IngestRequest } from "../objects/registration/rpc";
import type { ErrorDetail } from "../schemas/common";

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

/** Every goal id named must be a live goal of the registration's learning instance (422 otherwise). */
export async function checkGoals(db: Db, registration: RegistrationRow, goals: { goalId: string; path: string }[]): Promise<void> {
  const ids = [...new Set(goals.map((g) => g.goalId.toLowerCase()))];
  const known = new Set<string>();
  // D1 binds at most 100 parameters per statement.
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({ id: goalsTable.id })
      .from(goalsTable)
      .where(
        and(inArray(goalsTable.id, ids.slice(i, i + 90)), eq(goalsTable.learningInstanceId, registration.learningInstanceId), isNull(goalsTable.deletedAt)),
      )
      .all();
    for (const r of rows) known.add(r.id);
  }
  const details: ErrorDetail[] = goals
    .filter((g) => !known.has(g.goalId.toLowerCase()))
    .map(({ goalId, path }) => ({ path, message: `'${goalId}' is not a goal of the registration's learning instance` }));
  if (details.length) throw unprocessable("Unknown goal id(s).", details);
}

/** Hands the events to the registration's Durable Object, which validates modules and stores them atomically. */
export async function ingestEvents(env: Env, request: IngestRequest): Promise<void> {
  const stub = env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(request.registrationId));
  const outcome = await stub.ingest(request);
  if (!outcome.ok) throw unprocessable(outcome.message, outcome.details);
}
