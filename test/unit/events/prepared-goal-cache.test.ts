import { describe, expect, it } from "vitest";
import { preparedGoalFor } from "../../../src/objects/registration/recommendations";
import type { GoalSpec } from "../../../src/objects/registration/rpc";
import { normalizeGoal } from "../../../src/services/goals";
import { graph } from "../policy/fixture";

const index = graph();
const spec: GoalSpec = {
  id: "goal-cache",
  version: 1,
  body: normalizeGoal({ name: "C", adaptive_behavior: "practice", targets: { include: ["lref-c"] } }),
  graphUuid: "g-cache",
  graphVersion: 1,
};

describe("prepared goals, cached per isolate", () => {
  it("are compiled once per goal and graph version, whoever the goal was assigned to and when", () => {
    const first = preparedGoalFor({ ...spec, assignedAt: 1_000 }, index);
    expect(preparedGoalFor({ ...spec, assignedAt: 2_000 }, index)).toBe(first);
    expect(preparedGoalFor(spec, index)).toBe(first);
    expect(preparedGoalFor({ ...spec, version: 2 }, index)).not.toBe(first);
  });
});
