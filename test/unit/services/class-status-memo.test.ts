import { describe, expect, it } from "vitest";
import type { GoalSpec } from "../../../src/objects/registration/rpc";
import type { GoalStatus } from "../../../src/policy";
import { classRowStatuses } from "../../../src/services/class-status-memo";

const goal = (version: number): GoalSpec =>
  ({ id: "goal-1", version, body: { targets: { include: ["lref-a"] } }, graphUuid: "g", graphVersion: 1 }) as GoalSpec;
const status = (progress: number): GoalStatus => ({ status: "in_progress", progress, work_remaining: 3, targets: [] });

describe("class page rows kept by the Worker (class-level reads may lag 10 s; docs/api-conventions.md Freshness)", () => {
  it("answers a registration's row again for 4 s without calling its object, then calls it again", async () => {
    let calls = 0;
    const call = async () => [status(++calls / 10)];
    const reg = "reg-memo-1";
    expect((await classRowStatuses(reg, [goal(1)], 10_000, call))[0]!.progress).toBe(0.1);
    expect((await classRowStatuses(reg, [goal(1)], 14_000, call))[0]!.progress).toBe(0.1);
    expect((await classRowStatuses(reg, [goal(1)], 14_001, call))[0]!.progress).toBe(0.2);
    expect(calls).toBe(2);
  });

  it("never answers another registration's row, another goal version's, or a row from the future", async () => {
    let calls = 0;
    const call = async () => [status(++calls)];
    await classRowStatuses("reg-memo-2", [goal(1)], 20_000, call);
    await classRowStatuses("reg-memo-3", [goal(1)], 20_000, call);
    await classRowStatuses("reg-memo-2", [goal(2)], 20_000, call);
    await classRowStatuses("reg-memo-2", [goal(1)], 19_000, call);
    expect(calls).toBe(4);
  });
});
