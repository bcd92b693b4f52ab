import { describe, expect, it } from "vitest";
import { memoizedScores, SCORE_MEMO_MS } from "../../../src/services/score-memo";

/** A compute that counts its calls and answers a distinct object each time. */
function counter() {
  let calls = 0;
  const seen: unknown[] = [];
  return {
    compute: (projection: unknown) => {
      calls++;
      seen.push(projection);
      return { call: calls } as never;
    },
    calls: () => calls,
    seen,
  };
}

describe("predicted score memo: per account, projection revision and request shape, for SCORE_MEMO_MS", () => {
  it("reuses an account's scores for the same key within the interval, recomputes after it", () => {
    const scope = {};
    const c = counter();
    const first = memoizedScores(scope, "a 1 shape", 1_000, '{"x":1}', c.compute);
    expect(memoizedScores(scope, "a 1 shape", 1_000 + SCORE_MEMO_MS - 1, '{"x":1}', c.compute)).toBe(first);
    expect(c.calls()).toBe(1);
    expect(c.seen[0]).toEqual({ x: 1 });
    expect(memoizedScores(scope, "a 1 shape", 1_000 + SCORE_MEMO_MS, '{"x":1}', c.compute)).not.toBe(first);
    expect(c.calls()).toBe(2);
  });

  it("a new revision (the projection moved), another request shape or another item pool is computed afresh", () => {
    const scope = {};
    const c = counter();
    memoizedScores(scope, "a 1 shape", 0, "{}", c.compute);
    memoizedScores(scope, "a 2 shape", 1, "{}", c.compute);
    memoizedScores(scope, "a 2 other", 2, "{}", c.compute);
    memoizedScores({}, "a 2 other", 3, "{}", c.compute);
    expect(c.calls()).toBe(4);
  });

  it("an account without a projection is computed from none", () => {
    const c = counter();
    memoizedScores({}, "b 0 shape", 0, null, c.compute);
    expect(c.seen).toEqual([undefined]);
  });
});
