import { describe, expect, it } from "vitest";
import type { GoalSpec } from "../../../src/objects/registration/rpc";
import { StatusMemo } from "../../../src/objects/registration/status-memo";
import type { GoalStatus } from "../../../src/policy";

const goal: GoalSpec = { id: "goal-1", version: 1, body: { targets: { include: ["lref-a"] } }, graphUuid: "g", graphVersion: 1 } as GoalSpec;
const status = (progress: number): GoalStatus => ({ status: "in_progress", progress, work_remaining: 3, targets: [] });

describe("goal status memo (class-level reads may lag 10 s: docs/api-conventions.md, Freshness)", () => {
  it("answers the same state's status again within its age, and computes it again after", () => {
    const memo = new StatusMemo();
    let computed = 0;
    const compute = () => status(++computed / 10);
    expect(memo.get(goal, 5, "r1", 1_000, 5_000, compute).progress).toBe(0.1);
    expect(memo.get(goal, 5, "r1", 6_000, 5_000, compute).progress).toBe(0.1);
    expect(memo.get(goal, 5, "r1", 6_001, 5_000, compute).progress).toBe(0.2);
    expect(computed).toBe(2);
  });

  it("never answers a status of an earlier learner state, other rates or another goal version, nor to a read that asks 0", () => {
    const memo = new StatusMemo();
    let computed = 0;
    const compute = () => status(++computed / 10);
    memo.get(goal, 5, "r1", 1_000, 5_000, compute);
    expect(memo.get(goal, 6, "r1", 1_001, 5_000, compute).progress).toBe(0.2); // an event was applied
    expect(memo.get(goal, 6, "r2", 1_002, 5_000, compute).progress).toBe(0.3); // new population rates
    expect(memo.get({ ...goal, version: 2 }, 6, "r2", 1_003, 5_000, compute).progress).toBe(0.4); // the goal was edited
    expect(memo.get({ ...goal, version: 2 }, 6, "r2", 1_004, 0, compute).progress).toBe(0.5); // a registration's own read
    expect(memo.get({ ...goal, version: 2, assignedAt: 900 }, 6, "r2", 1_005, 5_000, compute).progress).toBe(0.6); // assigned again (max_work_on_goal counts from then)
    expect(computed).toBe(6);
  });
});
