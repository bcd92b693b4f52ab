import { describe, expect, it } from "vitest";
import { forward, forwardAtSpeeds } from "../../../src/tracing/episode";
import { addStep, newEvidence, RIGHT, TAUGHT, WRONG } from "../../../src/tracing/evidence";
import { type PopulationRates, priorPopulation, priorRates } from "../../../src/tracing/rates";
import { episodeRates } from "../../../src/tracing/reading";
import { SPEEDS } from "../../../src/tracing/speed";

/** The learner's speed posterior reads each objective at every grid speed in one pass (src/tracing/episode.ts). */
const learned: PopulationRates = {
  ...priorPopulation(),
  version: "learned",
  objectives: { "lref-a": { ...priorRates(), learn: 0.35, gradual: 0.4 }, "lref-b": { ...priorRates(), prior: 0.1, teach: 0.3 } },
  items: { "mref-a1": { guess: 0.3, slip: 0.05 }, "mref-b2": { guess: 0.12, slip: 0.2 } },
};

describe("forwardAtSpeeds", () => {
  it("equals forward at each speed, bit for bit", () => {
    const e = newEvidence();
    const outcomes = [WRONG, RIGHT, TAUGHT, WRONG, WRONG, RIGHT, RIGHT];
    for (let i = 0; i < 30; i++) addStep(e, `mref-a${(i % 3) + 1}`, outcomes[i % outcomes.length]!, i + 1, 1);
    expect(e.foldedAnswers + e.foldedTaught).toBeGreaterThan(0);
    for (const startKnown of [1, 0.3]) {
      const r = { ...episodeRates(learned, "lref-a", 1), startKnown };
      expect(forwardAtSpeeds(e, r, SPEEDS)).toStrictEqual(SPEEDS.map((speed) => forward(e, { ...r, speed })));
    }
    expect(forwardAtSpeeds(newEvidence(), episodeRates(learned, "lref-b", 1), SPEEDS)).toStrictEqual(
      SPEEDS.map((speed) => forward(newEvidence(), episodeRates(learned, "lref-b", speed))),
    );
  });
});
