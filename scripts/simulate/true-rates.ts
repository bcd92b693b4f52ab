/**
 * A discrete world's true rates in the engine's terms (src/tracing/rates.ts), to measure what the
 * engine's estimates cost: a class run on them decides as the engine would if it had learned its world
 * exactly. Per item its guess and slip; per objective its prior (the share of the class that knew it
 * among the learners who knew its prerequisites), its learning rate for the class's typical learner
 * (the geometric mean of the learners' speed multipliers) and instruction's, `gradual` at its lower
 * bound (learning is a switch), blocked at the engine's fixed rate. Only discrete worlds: a continuous
 * skill has no rates of this model to be true to.
 */
import { clamp } from "../../src/model/math";
import { BOUNDS, type ItemRates, itemRates, type ObjectiveRates, objectiveRates, type PopulationRates, PRIORS } from "../../src/tracing/rates";
import type { World } from "./world";

/** Families of rates that `withEstimated` can take from the estimate. */
export const RATE_FAMILIES = ["guess", "slip", "prior", "learn", "gradual", "spread"] as const;
export type RateFamily = (typeof RATE_FAMILIES)[number];

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

export function trueRates(world: World): PopulationRates {
  if (world.params.kind !== "discrete") throw new Error("true rates: a discrete world only");
  const logSpeeds = world.students.map((s) => Math.log(s.learnMultiplier));
  const typical = Math.exp(mean(logSpeeds));
  const items: Record<string, ItemRates> = {};
  const objectives: Record<string, ObjectiveRates> = {};
  for (const [o, objective] of world.objectives.entries()) {
    const its = objective.items.map((i) => world.items[i]!);
    for (const it of its) items[it.id] = { guess: it.guess, slip: it.slip };
    const ready = world.students.filter((s) => objective.prereqs.every((p) => s.known[p]));
    const learn = clamp(objective.learn * typical, ...BOUNDS.learn);
    objectives[objective.id] = {
      guess: mean(its.map((it) => it.guess)),
      slip: mean(its.map((it) => it.slip)),
      prior: clamp(ready.length ? ready.filter((s) => s.known[o]).length / ready.length : PRIORS.prior.mean, ...BOUNDS.prior),
      learn,
      teach: clamp(learn * world.params.instructionBoost, ...BOUNDS.learn),
      blocked: PRIORS.blocked.mean,
      gradual: BOUNDS.gradual[0],
    };
  }
  const all = Object.values(objectives);
  const graph: ObjectiveRates = {
    guess: mean(all.map((r) => r.guess)),
    slip: mean(all.map((r) => r.slip)),
    prior: mean(all.map((r) => r.prior)),
    learn: mean(all.map((r) => r.learn)),
    teach: mean(all.map((r) => r.teach)),
    blocked: PRIORS.blocked.mean,
    gradual: BOUNDS.gradual[0],
  };
  const spread = Math.sqrt(mean(logSpeeds.map((l) => (l - Math.log(typical)) ** 2)));
  return { version: "truth", answers: Number.POSITIVE_INFINITY, graph, objectives, items, speedSpread: clamp(spread, ...BOUNDS.speedSpread) };
}

/** The true rates with the named families taken from `estimate` (an item the estimate lacks: its objective's estimate, as the engine reads it). */
export function withEstimated(world: World, truth: PopulationRates, estimate: PopulationRates, families: readonly RateFamily[]): PopulationRates {
  if (!families.length) return truth;
  const has = (f: RateFamily) => families.includes(f);
  const mix = (t: ObjectiveRates, e: ObjectiveRates): ObjectiveRates => ({
    ...t,
    guess: has("guess") ? e.guess : t.guess,
    slip: has("slip") ? e.slip : t.slip,
    prior: has("prior") ? e.prior : t.prior,
    learn: has("learn") ? e.learn : t.learn,
    teach: has("learn") ? e.teach : t.teach,
    gradual: has("gradual") ? e.gradual : t.gradual,
  });
  const objectives: Record<string, ObjectiveRates> = {};
  for (const [label, t] of Object.entries(truth.objectives)) objectives[label] = mix(t, objectiveRates(estimate, label));
  const items: Record<string, ItemRates> = {};
  for (const it of world.items) {
    const t = truth.items[it.id];
    if (!t) continue;
    const e = itemRates(estimate, it.id, objectiveRates(estimate, world.objectives[it.objective]!.id));
    items[it.id] = { guess: has("guess") ? e.guess : t.guess, slip: has("slip") ? e.slip : t.slip };
  }
  return {
    version: `truth+${families.join("+")}:${estimate.version}`,
    answers: estimate.answers,
    graph: mix(truth.graph, estimate.graph),
    objectives,
    items,
    speedSpread: has("spread") ? estimate.speedSpread : truth.speedSpread,
  };
}
