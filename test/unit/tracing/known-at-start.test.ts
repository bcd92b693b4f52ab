import { describe, expect, it } from "vitest";
import { knownAtStart, smooth } from "../../../src/tracing/episode";
import { addStep, newEvidence, RIGHT, TAUGHT, WRONG } from "../../../src/tracing/evidence";
import { type PopulationRates, priorPopulation, priorRates } from "../../../src/tracing/rates";
import { episodeRates } from "../../../src/tracing/reading";

/** What a prerequisite's episode says of the learner's start is read without the forward pass (src/tracing/episode.ts). */
const learned: PopulationRates = {
  ...priorPopulation(),
  version: "learned",
  objectives: { "lref-a": { ...priorRates(), learn: 0.35, gradual: 0.4, blocked: 0.05 } },
  items: { "mref-a1": { guess: 0.3, slip: 0.05 }, "mref-a2": { guess: 0.12, slip: 0.2 } },
};

describe("knownAtStart", () => {
  it("equals smooth's knownAtStart, bit for bit, with and without folded steps, context and speed", () => {
    const outcomes = [WRONG, RIGHT, TAUGHT, WRONG, WRONG, RIGHT, RIGHT];
    for (const length of [0, 1, 5, 30]) {
      const e = newEvidence();
      for (let i = 0; i < length; i++) addStep(e, `mref-a${(i % 3) + 1}`, outcomes[(i * 5) % outcomes.length]!, i + 1, 1);
      for (const speed of [0.5, 1, 2.83])
        for (const startKnown of [1, 0.3])
          for (const context of [undefined, { fromBelow: 0.7, fromAbove: -1.2 }]) {
            const r = { ...episodeRates(learned, "lref-a", speed), startKnown };
            expect(knownAtStart(e, r, context)).toBe(smooth(e, r, context).knownAtStart);
          }
    }
  });
});
