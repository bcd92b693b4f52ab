import type { AccountScores } from "../analytics";

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
 * Scores per (account, graph version, projection revision, request shape), in the isolate: resolved
 * values only (src/lib/in-flight.ts). A class dashboard polling the scores of the same accounts
 * recomputes only those whose projection moved. Kept per item-pool object (`scope`), so a refresh of
 * the item parameters starts afresh; the oldest half goes when it is full.
 */
const memo = new WeakMap<object, Map<string, { at: number; scores: AccountScores }>>();

function entriesOf(scope: object): Map<string, { at: number; scores: AccountScores }> {
  let entries = memo.get(scope);
  if (!entries) {
    entries = new Map();
    memo.set(scope, entries);
  }
  return entries;
}

/** The scores kept for `key` if computed less than SCORE_MEMO_MS ago. */
export function keptScores(scope: object, key: string, nowMs: number): AccountScores | undefined {
  const hit = memo.get(scope)?.get(key);
  return hit && nowMs - hit.at < SCORE_MEMO_MS && nowMs >= hit.at ? hit.scores : undefined;
}

export function keepScores(scope: object, key: string, nowMs: number, scores: AccountScores): void {
  const entries = entriesOf(scope);
  entries.delete(key);
  entries.set(key, { at: nowMs, scores });
  if (entries.size > MAX_ENTRIES) {
    let drop = entries.size / 2;
    for (const k of entries.keys()) {
      if (drop-- <= 0) break;
      entries.delete(k);
    }
  }
}
