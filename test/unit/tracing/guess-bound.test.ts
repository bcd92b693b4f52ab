import { describe, expect, it } from "vitest";
import { estimateRates } from "../../../src/tracing/estimate";
import { priorPopulation } from "../../../src/tracing/rates";
import { emptyDelta } from "../../../src/tracing/statistics";

/** The guess's upper credible bound (rates.ts GUESS_BOUND), which completion reads the evidence with. */
describe("guess upper bound", () => {
  it("lies above the guess on a new graph and closes on it as the population answers", () => {
    const prior = priorPopulation().graph;
    expect(prior.guessHigh).toBeGreaterThan(prior.guess + 0.05);

    const totals = emptyDelta();
    totals.items.few = { objective: "o", known: 0, knownRight: 0, unknown: 4, unknownRight: 1, partial: 0 };
    totals.items.many = { objective: "o", known: 0, knownRight: 0, unknown: 2000, unknownRight: 600, partial: 0 };
    const rates = estimateRates(totals, "v1");
    const few = rates.items.few!;
    const many = rates.items.many!;
    expect(few.guessHigh - few.guess).toBeGreaterThan(0.05);
    expect(many.guess).toBeCloseTo(0.3, 1);
    expect(many.guessHigh - many.guess).toBeGreaterThan(0);
    expect(many.guessHigh - many.guess).toBeLessThan(0.01);
  });
});
