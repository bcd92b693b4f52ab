import { describe, expect, it } from "vitest";
import { estimateRates } from "../../../src/tracing/estimate";
import { emptyDelta, emptyObjectiveCounts } from "../../../src/tracing/statistics";

/**
 * The known state answers right with 1 − slip, and slip is bounded at 0.2 (rates.ts BOUNDS): a class
 * whose answers read as "known" miss a third of the time is one whose known state has taken in
 * learners halfway up a learning curve, and a slip fitted to them would let `ready` come before
 * mastery (docs/recommendation-history.md, "Six more trials").
 */
describe("the slip bound", () => {
  const classMissing = (share: number) => {
    const totals = emptyDelta();
    const answers = 4000;
    for (let i = 0; i < 20; i++)
      totals.items[`item-${i}`] = {
        objective: "o1",
        known: answers / 20,
        knownRight: ((1 - share) * answers) / 20,
        unknown: answers / 20,
        unknownRight: (0.1 * answers) / 20,
        partial: 0,
      };
    totals.objectives.o1 = { ...emptyObjectiveCounts(), episodes: 200, knownAtStart: 50, learnOpportunities: 1000, learnings: 150, directEntries: 150 };
    return estimateRates(totals, "test");
  };

  it("reads known learners who miss a third of their answers at a slip of 0.2, not 0.33", () => {
    const rates = classMissing(1 / 3);
    expect(rates.graph.slip).toBeCloseTo(0.2, 6);
    expect(rates.objectives.o1?.slip).toBeCloseTo(0.2, 6);
    for (let i = 0; i < 20; i++) expect(rates.items[`item-${i}`]?.slip).toBeCloseTo(0.2, 6);
  });

  it("reads a slip within the bound as the class shows it", () => {
    const rates = classMissing(0.12);
    expect(rates.graph.slip).toBeGreaterThan(0.11);
    expect(rates.graph.slip).toBeLessThan(0.13);
  });
});
