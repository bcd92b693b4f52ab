import type { GoalStatus } from "../../policy";
import { type GoalSpec, goalSpecKey } from "./rpc";

/**
 * How long a goal status computed for a class-level read (an instance's status-and-progress page)
 * may be answered again. docs/api-conventions.md "Freshness": class-level reads may lag the events by at most
 * 10 s. A memoized status is always of the learner's current state (any event recomputes it) and of
 * the graph's current rates; only the drift of the beliefs with time is up to this old.
 */
export const CLASS_STATUS_MAX_AGE_MS = 5_000;

/** Goals kept per object (a registration has a few goals; a larger set is dropped and started again). */
const MAX_GOALS = 16;

interface Entry {
  /** learner state `seq` (events applied), goal and graph versions and rates version it was computed for */
  key: string;
  at: number;
  status: GoalStatus;
}

/**
 * The registration's latest goal statuses, in the object's memory: a class page polled every few
 * seconds asks each of its learners' objects again and again for the same goal, and a status changes
 * only with an event, new rates, or (slowly) with time.
 */
export class StatusMemo {
  readonly #entries = new Map<string, Entry>();

  /** The status computed by `compute`, or the one computed at most `maxAgeMs` ago for the same state, goal and rates. */
  get(goal: GoalSpec, seq: number, ratesVersion: string, nowMs: number, maxAgeMs: number, compute: () => GoalStatus): GoalStatus {
    const key = `${seq}|${goalSpecKey(goal)}|${ratesVersion}`;
    const hit = this.#entries.get(goal.id);
    if (hit && hit.key === key && nowMs >= hit.at && nowMs - hit.at <= maxAgeMs) return hit.status;
    const status = compute();
    if (this.#entries.size >= MAX_GOALS && !this.#entries.has(goal.id)) this.#entries.clear();
    this.#entries.set(goal.id, { key, at: nowMs, status });
    return status;
  }
}
