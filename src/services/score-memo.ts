import type { AccountGraphProjection, predictedScores } from "../analytics";

type AccountScores = ReturnType<typeof predictedScores>;

/**
 * How long an account's computed scores are reused for the same request shape while its projection
 * has not changed (same revision): decisions.md "Freshness" lets predicted score lag up to 10 s; only
 * the passage of time (the beliefs' drift since the last answer) is older, by at most this much.
 */
export const SCORE_MEMO_MS = 2_000;
const MAX_ENTRIES = 20_000;

/**
 * Scores per (account, graph version, projection revision, request shape), in the isolate: resolved
 * values only (src/lib/in-flight.ts). A class dashboard polling the scores of the same accounts
 * recomputes only those whose projection moved. Kept per item-pool object (`scope`), so a refresh of
 * the item parameters starts afresh; the oldest half goes when it is full.
 */
const memo = new WeakMap<object, Map<string, { at: number; scores: AccountScores }>>();

export function memoizedScores(
  scope: object,
  key: string,
  nowMs: number,
  raw: string | null,
  compute: (projection: AccountGraphProjection | undefined) => AccountScores,
): AccountScores {
  let entries = memo.get(scope);
  if (!entries) {
    entries = new Map();
    memo.set(scope, entries);
  }
  const hit = entries.get(key);
  if (hit && nowMs - hit.at < SCORE_MEMO_MS && nowMs >= hit.at) return hit.scores;
  const scores = compute(raw === null ? undefined : (JSON.parse(raw) as AccountGraphProjection));
  entries.delete(key);
  entries.set(key, { at: nowMs, scores });
  if (entries.size > MAX_ENTRIES) {
    let drop = entries.size / 2;
    for (const k of entries.keys()) {
      if (drop-- <= 0) break;
      entries.delete(k);
    }
  }
  return scores;
}
