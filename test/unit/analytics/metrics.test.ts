import { describe, expect, it } from "vitest";
import { objectiveBelief } from "../../../src/analytics/beliefs";
import { expectedScoreValue, type MetricContext, proficiencyValue, stateProjection } from "../../../src/analytics/metrics";
import { applyProjectionMessage } from "../../../src/analytics/projection";
import { projectionMessages } from "../../../src/analytics/projection-publish";

const filter = { priorVarGlobal: 1, priorVarObjective: 0.3, forgetVarPerDay: 0.01 };
const ctx: MetricContext = { nowMs: 0, filter, globalDifficulty: 0 };
const o = (mu: number, v: number, n: number) => ({ mu, v, n, t: 0 });
const learner = { global: o(1, 0.05, 40), objectives: { a: o(0.5, 0.05, 30), b: o(-0.5, 0.1, 10) } };

describe("proficiency and expected score", () => {
  it("proficiency is a value in a 95% interval with the evidence count; goal level aggregates targets", () => {
    const p = stateProjection(learner);
    const a = proficiencyValue(p, ["a"], ctx);
    expect(a.lower).toBeLessThan(a.proficiency);
    expect(a.proficiency).toBeLessThan(a.upper);
    expect(a.upper).toBeLessThan(1);
    expect(a.evidence).toBe(30);
    const goal = proficiencyValue(p, ["a", "b"], ctx);
    const b = proficiencyValue(p, ["b"], ctx);
    expect(goal.proficiency).toBeGreaterThan(b.proficiency);
    expect(goal.proficiency).toBeLessThan(a.proficiency);
    expect(goal.evidence).toBe(40);
  });

  it("the state projection reads like a published projection", () => {
    const published = projectionMessages(learner, { accountId: "x", graphId: "g", registrationId: "r", registrationCreatedAt: 0, seq: 1 }).reduce<
      ReturnType<typeof applyProjectionMessage> | undefined
    >((p, m) => applyProjectionMessage(p, m), undefined);
    for (const k of ["a", "b", "c"]) {
      const x = objectiveBelief(stateProjection(learner), k, 0, filter);
      const y = objectiveBelief(published, k, 0, filter);
      expect(x.mean).toBeCloseTo(y.mean, 5);
      expect(x.variance).toBeCloseTo(y.variance, 5);
    }
  });

  it("expected score: 95% interval wider than proficiency's (next answers are noisy); insufficient_data only without evidence", () => {
    const p = stateProjection(learner);
    const e = expectedScoreValue(p, ["a", "b"], ctx);
    const prof = proficiencyValue(p, ["a", "b"], ctx);
    expect(e.status).toBe("estimated");
    expect(e.upper - e.lower).toBeGreaterThan(prof.upper - prof.lower);
    expect(e.expected_score).toBeCloseTo(prof.proficiency, 1);
    expect(expectedScoreValue(p, ["never-seen"], ctx).status).toBe("estimated"); // 40 answers elsewhere
    const fresh = stateProjection({ global: o(0, 1, 0), objectives: {} });
    expect(expectedScoreValue(fresh, ["a"], ctx).status).toBe("insufficient_data");
    expect(expectedScoreValue(undefined, ["a"], ctx).status).toBe("insufficient_data");
  });
});
