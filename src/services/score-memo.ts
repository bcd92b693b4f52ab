import type { AccountScores } from "../analytics";
import { TimedMemo } from "../lib/timed-memo";

/**
 * How long an account's computed scores are reused for the same request shape while its projection
 * has not changed (same revision): docs/api-conventions.md "Freshness" lets predicted score lag up to 10 s.
 * A kept entry holds every event the stored projection holds (a new revision is computed at once), so
 * no event is later than without the memo; only the passage of time (the beliefs' drift since the
 * last answer) is older, by at most this much (the status page's class rows allow 9 s of it). 8 s, not
 * 2: a class of 1,000 polled without a change was computed again in full every 2 s.
 */
export const SCORE_MEMO_MS = 8_000;
const MAX_ENTRIES = 20_000;

/**
 * Scores per (account, graph version, projection revision, request shape), in the isolate. A class
 * dashboard polling the scores of the same accounts recomputes only those whose projection moved.
 * Kept per item-pool object (`scope`), so a refresh of the item parameters starts afresh.
 */
const memo = new WeakMap<object, TimedMemo<AccountScores>>();

/** The scores kept for `key` if computed less than SCORE_MEMO_MS ago (times are whole milliseconds). */
export function keptScores(scope: object, key: string, nowMs: number): AccountScores | undefined {
  return memo.get(scope)?.get(key, nowMs);
}

export function keepScores(scope: object, key: string, nowMs: number, scores: AccountScores): void {
  let entries = memo.get(scope);
  if (!entries) {
    entries = new TimedMemo(SCORE_MEMO_MS - 1, MAX_ENTRIES);
    memo.set(scope, entries);
  }
  entries.set(key, nowMs, scores);
}
