import { describe, expect, it } from "vitest";
import { trueRates, withEstimated } from "../../../scripts/simulate/true-rates";
import { generateWorld, SMALL } from "../../../scripts/simulate/world";
import { priorPopulation } from "../../../src/tracing/rates";

/** The simulator's true rates (what the family's `--true-rates` runs decide on) are the world's, in the engine's terms. */
describe("a discrete world's true rates", () => {
  const world = generateWorld({ ...SMALL, students: 50, instructionShare: 0 }, 5);
  const truth = trueRates(world);

  it("give every item its guess and slip, and every objective the share of the class that knew it among those who knew its prerequisites", () => {
    for (const it of world.items) expect(truth.items[it.id]).toEqual({ guess: it.guess, slip: it.slip });
    for (const [o, objective] of world.objectives.entries()) {
      const ready = world.students.filter((s) => objective.prereqs.every((p) => s.known[p]));
      if (!ready.length) continue;
      const share = ready.filter((s) => s.known[o]).length / ready.length;
      expect(truth.objectives[objective.id]?.prior).toBeCloseTo(Math.min(0.99, Math.max(0.01, share)), 10);
    }
  });

  it("take from the estimate only the families named", () => {
    const estimate = priorPopulation();
    expect(withEstimated(world, truth, estimate, [])).toBe(truth);
    const mixed = withEstimated(world, truth, estimate, ["prior"]);
    const label = world.objectives[0]?.id ?? "";
    expect(mixed.objectives[label]?.prior).toBe(estimate.graph.prior);
    expect(mixed.objectives[label]?.guess).toBe(truth.objectives[label]?.guess);
    const item = world.items[0]?.id ?? "";
    expect(withEstimated(world, truth, estimate, ["guess"]).items[item]?.guess).toBe(estimate.graph.guess);
  });

  it("are refused for a continuous world, which has none", () => {
    expect(() => trueRates(generateWorld({ ...SMALL, students: 50, instructionShare: 0, kind: "continuous" }, 5))).toThrow(/discrete/);
  });
});
