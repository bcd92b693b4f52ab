import { describe, expect, it } from "vitest";
import type { AccountScores } from "../../../src/analytics";
import { keepScores, keptScores, SCORE_MEMO_MS } from "../../../src/services/score-memo";

const scores = (n: number) => ({ n }) as unknown as AccountScores;

describe("predicted score memo: per account, projection revision and request shape, for SCORE_MEMO_MS", () => {
  it("keeps an account's scores for the same key within the interval, not after it", () => {
    const scope = {};
    const first = scores(1);
    keepScores(scope, "a 1 shape", 1_000, first);
    expect(keptScores(scope, "a 1 shape", 1_000 + SCORE_MEMO_MS - 1)).toBe(first);
    expect(keptScores(scope, "a 1 shape", 1_000 + SCORE_MEMO_MS)).toBeUndefined();
    // a clock that went back is no reason to trust an entry
    expect(keptScores(scope, "a 1 shape", 999)).toBeUndefined();
  });

  it("a new revision (the projection moved), another request shape or another item pool finds nothing", () => {
    const scope = {};
    keepScores(scope, "a 1 shape", 0, scores(1));
    expect(keptScores(scope, "a 2 shape", 1)).toBeUndefined();
    expect(keptScores(scope, "a 1 other", 1)).toBeUndefined();
    expect(keptScores({}, "a 1 shape", 1)).toBeUndefined();
    expect(keptScores(scope, "a 1 shape", 1)).toEqual(scores(1));
  });
});
