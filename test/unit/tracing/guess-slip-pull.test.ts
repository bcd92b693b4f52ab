import { describe, expect, it } from "vitest";
import { estimateRates } from "../../../src/tracing/estimate";
import { emptyDelta, emptyObjectiveCounts, type StatisticsDelta } from "../../../src/tracing/statistics";

/**
 * An objective's and an item's guess and slip move from the graph's only on the evidence of about 100
 * answers (rates.ts SHRINK). A class answers an objective most of its learners know once or
 * twice each; the E-step cannot tell those right answers from guesses, and with a pull of 10 answers
 * the objective's guess drifted to its bound (docs/recommendation-history.md, "Guess and slip pulled
 * to the graph's").
 */
describe("guess and slip below the graph", () => {
  /** 19 objectives whose answers read a guess of 0.2, and `o-x` whose `unknown` guessing answers are right at `share`. */
  const classWith = (unknown: number, share: number): StatisticsDelta => {
    const totals = emptyDelta();
    const add = (item: string, objective: string, u: number, right: number) => {
      totals.items[item] = { objective, known: 100, knownRight: 90, unknown: u, unknownRight: right * u, partial: 0 };
      totals.objectives[objective] = { ...emptyObjectiveCounts(), episodes: 40, knownAtStart: 20, learnOpportunities: 200, learnings: 20, directEntries: 20 };
    };
    for (let i = 0; i < 19; i++) add(`item-${i}`, `o-${i}`, 200, 0.2);
    add("item-x", "o-x", unknown, share);
    return totals;
  };

  it("keeps an objective whose few guessing answers look like knowing near the graph's guess", () => {
    const rates = estimateRates(classWith(60, 0.45), "test");
    const graph = rates.graph.guess;
    expect(graph).toBeGreaterThan(0.19);
    expect(graph).toBeLessThan(0.22);
    // 60 answers at 0.45 against 100 at the graph's: about 0.29, not the 0.41 a pull of 10 gives
    expect(rates.objectives["o-x"]?.guess).toBeLessThan(0.31);
    expect(rates.objectives["o-x"]?.guess).toBeGreaterThan(graph);
    expect(rates.items["item-x"]?.guess).toBeLessThan(rates.objectives["o-x"]!.guess + 0.1);
  });

  it("moves an objective's guess to what many answers show", () => {
    const rates = estimateRates(classWith(3000, 0.45), "test");
    expect(rates.objectives["o-x"]?.guess).toBeGreaterThan(0.42);
    expect(rates.items["item-x"]?.guess).toBeGreaterThan(0.42);
  });

  it("pulls slip the same way", () => {
    const totals = classWith(200, 0.2);
    totals.items["item-x"] = { objective: "o-x", known: 40, knownRight: 26, unknown: 200, unknownRight: 40, partial: 0 };
    const rates = estimateRates(totals, "test");
    // 14 misses in 40 known answers (0.35) against 100 answers at the graph's slip (about 0.1)
    expect(rates.objectives["o-x"]?.slip).toBeLessThan(0.2);
    expect(rates.objectives["o-x"]?.slip).toBeGreaterThan(rates.graph.slip);
  });
});
