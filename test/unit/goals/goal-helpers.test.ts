import { describe, expect, it } from "vitest";
import { goalDeadline, normalizeGoal, targetKindOf } from "../../../src/services/goals";

describe("goal helpers", () => {
  it("normalizeGoal fills the decided defaults", () => {
    const body = normalizeGoal({ name: "G", adaptive_behavior: "introduce", targets: { include: ["lref-a"] } });
    expect(body).toEqual({
      name: "G",
      adaptive_behavior: "introduce",
      targets: { include: ["lref-a"], completion_behavior: "all" },
      scope: { remediation_depth: "one", include: [], exclude: [] },
      completion_criteria: { min_predicted_mastery: 0.8 },
      config: { analytics_enabled: true, assign_to: "none" },
    });
    expect(normalizeGoal({ name: "G", adaptive_behavior: "review", targets: { include: ["mref-x"] }, timing: {} }).timing).toBeUndefined();
  });

  it("targetKindOf reads targets or topics", () => {
    expect(targetKindOf({ targets: { include: ["mref-x"] } })).toBe("module");
    expect(targetKindOf({ topics: [{ id: "t", targets: { include: ["lref-x"] } }] })).toBe("objective");
  });

  it("goalDeadline: the earlier of end and assigned_at + relative_deadline", () => {
    const assignedAt = Date.parse("2026-03-01T00:00:00Z");
    const base = normalizeGoal({ name: "G", adaptive_behavior: "practice", targets: { include: ["lref-a"] } });
    expect(goalDeadline(base, assignedAt)).toBeUndefined();
    expect(goalDeadline({ ...base, timing: { relative_deadline: "P2W" } }, assignedAt)?.toISOString()).toBe("2026-03-15T00:00:00.000Z");
    expect(goalDeadline({ ...base, timing: { end: "2026-03-10T00:00:00.000Z", relative_deadline: "P2W" } }, assignedAt)?.toISOString()).toBe(
      "2026-03-10T00:00:00.000Z",
    );
    expect(goalDeadline({ ...base, timing: { end: "2026-04-10T00:00:00.000Z", relative_deadline: "PT36H" } }, assignedAt)?.toISOString()).toBe(
      "2026-03-02T12:00:00.000Z",
    );
  });
});
