import { TimedMemo } from "../lib/timed-memo";
import { type GoalSpec, goalSpecKey } from "../objects/registration/rpc";
import type { GoalStatus } from "../policy";

/**
 * How long a learner's goal statuses, as a class page's row received them from the registration's
 * object, are answered again by the Worker without calling the object. docs/api-conventions.md
 * "Freshness": class-level reads may lag the events by at most 10 s. A row kept here is at most
 * this far behind the learner's events; the object's own memo (src/objects/registration/status-memo.ts)
 * is always of the learner's state, its statuses' drift with time at most 5 s old: 9 s in all.
 * A registration's own read never goes through here (read-your-writes).
 */
const CLASS_ROW_MAX_AGE_MS = 4_000;
const MAX_ROWS = 20_000;

/** Per registration and the exact goal versions asked. */
const rows = new TimedMemo<GoalStatus[]>(CLASS_ROW_MAX_AGE_MS, MAX_ROWS);

const keyOf = (registrationId: string, goals: GoalSpec[]) => `${registrationId}|${goals.map(goalSpecKey).join(",")}`;

/**
 * A class page polled every few seconds called each of its learners' objects again and again for
 * statuses that change only with their events (docs/performance.md, third pass): the statuses
 * `call` returns, or those it returned at most CLASS_ROW_MAX_AGE_MS ago for the same goals.
 */
export async function classRowStatuses(registrationId: string, goals: GoalSpec[], nowMs: number, call: () => Promise<GoalStatus[]>): Promise<GoalStatus[]> {
  const key = keyOf(registrationId, goals);
  const hit = rows.get(key, nowMs);
  if (hit) return hit;
  const statuses = await call();
  rows.set(key, nowMs, statuses);
  return statuses;
}
