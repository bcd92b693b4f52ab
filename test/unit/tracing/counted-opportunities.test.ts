import { describe, expect, it } from "vitest";
import { COUNTED_RISK, smooth } from "../../../src/tracing/episode";
import { addStep, newEvidence, RIGHT, WRONG } from "../../../src/tracing/evidence";
import { type PopulationRates, priorPopulation, priorRates } from "../../../src/tracing/rates";
import { episodeRates } from "../../../src/tracing/reading";

/**
 * The E-step's counts towards an objective's learning rate (src/tracing/episode.ts `smooth`): an
 * episode counts its opportunities only until the current rate says all but COUNTED_RISK of learners
 * would have learned, so a long stall (a blocked learner's) cannot drag the rate down without bound,
 * while an episode that ended in learning within that point counts as before.
 */
function ratesWith(learn: number): PopulationRates {
  return {
    ...priorPopulation(),
    version: `counted-${learn}`,
    objectives: { "lref-a": { ...priorRates(), learn, prior: 0.05, gradual: 0 } },
    items: { "mref-a1": { guess: 0.2, slip: 0.1 } },
  };
}

function episode(learn: number, outcomes: number[], risk?: number) {
  const e = newEvidence();
  for (const [i, o] of outcomes.entries()) addStep(e, "mref-a1", o, i + 1, 1);
  return smooth(e, episodeRates(ratesWith(learn), "lref-a", 1), undefined, risk);
}

/** Opportunities until the survival in "not yet learned" falls to the risk, at speed 1. */
const cap = (learn: number) => Math.ceil(Math.log(COUNTED_RISK) / Math.log(1 - learn));

describe("opportunities counted towards the learning rate", () => {
  it("a stall past the cap counts at most the cap's opportunities, where counting all of them gives many more", () => {
    // a slow objective (rate 0.03, cap 99): 150 wrong answers, most of them folded, are still read as
    // possibly learnable, so every one of them would pull the rate down
    const stall = Array(150).fill(WRONG);
    const counted = episode(0.03, stall);
    const all = episode(0.03, stall, 0);
    expect(all.learnOpportunities).toBeGreaterThan(cap(0.03) * 0.5);
    expect(counted.learnOpportunities).toBeLessThanOrEqual(cap(0.03));
    expect(counted.learnOpportunities).toBeLessThan(all.learnOpportunities * 0.8);
  });

  it("an episode that ends in learning within the cap counts every opportunity and its learning, as without the cap", () => {
    const outcomes = [WRONG, WRONG, WRONG, WRONG, WRONG, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT, RIGHT];
    const counted = episode(0.1, outcomes);
    expect(counted.learnings).toBeGreaterThan(0.9);
    expect(counted.learnOpportunities).toBeCloseTo(episode(0.1, outcomes, 0).learnOpportunities, 2);
    expect(counted.learnings).toBeCloseTo(episode(0.1, outcomes, 0).learnings, 2);
  });
});
