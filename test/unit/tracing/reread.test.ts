import { describe, expect, it } from "vitest";
import { contribute, emptyContributions } from "../../../src/tracing/contribute";
import { addStep, newEvidence, RIGHT, WRONG } from "../../../src/tracing/evidence";
import { type PopulationRates, priorPopulation, priorRates } from "../../../src/tracing/rates";
import { rereadEvidence } from "../../../src/tracing/reread";
import { emptyDelta } from "../../../src/tracing/statistics";

/** A learner's evidence on two objectives, b building on a, contributed under the priors (src/tracing/reread.ts). */
function contributedUnderPriors() {
  const a = newEvidence();
  const b = newEvidence();
  for (const [i, o] of [RIGHT, RIGHT, WRONG, RIGHT].entries()) addStep(a, `mref-a${(i % 2) + 1}`, o, i + 1, 1);
  for (const [i, o] of [WRONG, WRONG, RIGHT, RIGHT, RIGHT].entries()) addStep(b, "mref-b1", o, i + 5, 1);
  const evidence = { "lref-a": a, "lref-b": b };
  const prerequisites = (k: string) => (k === "lref-b" ? ["lref-a"] : []);
  const contributions = emptyContributions();
  contribute(evidence, Object.keys(evidence), priorPopulation(), prerequisites, contributions, emptyDelta());
  return { evidence, prerequisites, contributions };
}

/** Rates a class taught: guessing rarer, most learners knowing a at the start. */
const taught: PopulationRates = {
  ...priorPopulation(),
  version: "taught",
  graph: { ...priorRates(), guess: 0.08, prior: 0.8 },
  objectives: { "lref-a": { ...priorRates(), guess: 0.08, prior: 0.9 }, "lref-b": { ...priorRates(), guess: 0.08, learn: 0.4 } },
};

describe("re-reading unchanged evidence under newer rates", () => {
  it("replaces the earlier reading: the answers counted stay as they were, how they are read moves", () => {
    const { evidence, prerequisites, contributions } = contributedUnderPriors();
    const before = structuredClone(contributions);
    const read = rereadEvidence(evidence, taught, prerequisites, contributions);
    if (!read) throw new Error("expected a re-reading");
    // each answer is still counted once: its share moves between known, guessing and partly known
    const items = Object.values(read.delta.items);
    expect(items.length).toBeGreaterThan(0);
    for (const c of items) expect(c.known + c.unknown + c.partial).toBeCloseTo(0, 9);
    expect(read.delta.speed.learners).toBe(0);
    // a's first answers were read as guesses under the priors far more than under the taught rates
    const a = read.delta.objectives["lref-a"];
    expect(a?.knownAtStart).toBeGreaterThan(0.05);
    // the earlier contributions are not touched: the caller keeps the new ones only if it sends the delta
    expect(contributions).toEqual(before);
    const knownAtStart = (c: typeof before) => c.objectives["lref-a"]?.counts.knownAtStart ?? 0;
    expect(knownAtStart(read.contributions)).toBeCloseTo(knownAtStart(before) + (a?.knownAtStart ?? 0), 9);
  });

  it("moves nothing worth sending under rates that barely moved", () => {
    const { evidence, prerequisites, contributions } = contributedUnderPriors();
    const barely: PopulationRates = { ...priorPopulation(), version: "barely", graph: { ...priorRates(), guess: 0.2001 } };
    expect(rereadEvidence(evidence, barely, prerequisites, contributions)).toBeUndefined();
    const moved: PopulationRates = { ...priorPopulation(), version: "moved", graph: { ...priorRates(), guess: 0.25 } };
    expect(rereadEvidence(evidence, moved, prerequisites, contributions)).toBeDefined();
  });

  it("moves nothing under the rates it was read with: converged, nothing to send", () => {
    const { evidence, prerequisites, contributions } = contributedUnderPriors();
    expect(rereadEvidence(evidence, priorPopulation(), prerequisites, contributions)).toBeUndefined();
    const once = rereadEvidence(evidence, taught, prerequisites, contributions);
    expect(once).toBeDefined();
    expect(rereadEvidence(evidence, taught, prerequisites, once?.contributions ?? emptyContributions())).toBeUndefined();
  });
});
