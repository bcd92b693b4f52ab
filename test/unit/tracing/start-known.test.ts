import { describe, expect, it } from "vitest";
import { addStep, newEvidence, type ObjectiveEvidence, RIGHT, WRONG } from "../../../src/tracing/evidence";
import { type PopulationRates, priorPopulation, priorRates } from "../../../src/tracing/rates";
import { LearnerReading } from "../../../src/tracing/reading";

/**
 * Whether a learner knew an objective's prerequisites before working on them (src/tracing/reading.ts
 * `startKnown`): every ancestor the learner worked on counts once, however many paths lead to it.
 */
const population: PopulationRates = {
  ...priorPopulation(),
  version: "start-known",
  graph: { ...priorRates(), prior: 0.9, learn: 0.3, guess: 0.2, slip: 0.1 },
};

function evidence(outcomes: number[]): ObjectiveEvidence {
  const e = newEvidence();
  for (const [i, o] of outcomes.entries()) addStep(e, "mref-x", o, i + 1, 1);
  return e;
}

/** A ladder: level i has objectives `l${i}a` and `l${i}b`, each needing both of level i − 1 (2^i paths to the root level). */
function ladder(objective: string): readonly string[] {
  const level = Number(objective.slice(1, -1));
  return level === 0 ? [] : [`l${level - 1}a`, `l${level - 1}b`];
}

describe("startKnown", () => {
  it("counts an ancestor once however many paths lead to it: a ladder reads as the chain of the same objectives", () => {
    const levels = 10;
    const answers: Record<string, ObjectiveEvidence> = {};
    for (let i = 0; i < levels; i++)
      for (const side of ["a", "b"]) answers[`l${i}${side}`] = evidence(i === 0 && side === "a" ? [WRONG, RIGHT, RIGHT, RIGHT] : [RIGHT, RIGHT, RIGHT]);
    const top = `l${levels}a`;
    const viaLadder = new LearnerReading(answers, population, ladder).startKnown(top);
    // the same ancestors, one path to each: l9b ← l9a ← l8b ← l8a ← … ← l0a
    const order = Array.from({ length: levels }, (_, i) => [`l${i}a`, `l${i}b`]).flat();
    const chain = (objective: string) => {
      if (objective === top) return [order.at(-1)!];
      const i = order.indexOf(objective);
      return i > 0 ? [order[i - 1]!] : [];
    };
    const viaChain = new LearnerReading(answers, population, chain).startKnown(top);
    expect(viaLadder).toBeCloseTo(viaChain, 12);
    // a learner who answered every ancestor right but slipped once at the root is still likely to have known them
    expect(viaLadder).toBeGreaterThan(0.5);
  });

  it("reads a learner who learned an ancestor here as not having known what builds on it", () => {
    const answers = { r: evidence([WRONG, WRONG, WRONG, WRONG, RIGHT, RIGHT, RIGHT]), m: evidence([RIGHT, RIGHT, RIGHT]) };
    const prerequisites = (o: string) => ({ m: ["r"], top: ["m"] })[o as "m" | "top"] ?? [];
    expect(new LearnerReading(answers, population, prerequisites).startKnown("top")).toBeLessThan(0.2);
  });
});
