/**
 * A registration's share of its graph's population statistics (statistics.ts), brought up to date:
 * the objectives whose evidence changed are re-read with the current rates, the learner's current
 * speed and how likely their prerequisites are known (beliefs over every objective the learner
 * touched and their prerequisites), and the differences to what the registration contributed
 * before are added to `delta`. What was contributed is kept by the registration (`Contributions`,
 * bookkeeping beside its replayable state).
 */
import { type LocalFactor, scopeBeliefs } from "./beliefs";
import type { ObjectiveEvidence } from "./evidence";
import type { PopulationRates } from "./rates";
import { LearnerReading } from "./reading";
import { contributionDelta, type ObjectiveContribution, type SpeedContribution, type StatisticsDelta, speedDelta } from "./statistics";

export interface Contributions {
  objectives: Record<string, ObjectiveContribution>;
  speed?: SpeedContribution;
}

/** The graph's prerequisite relation, by objective label. */
export type Prerequisites = (objective: string) => readonly string[];

export function emptyContributions(): Contributions {
  return { objectives: {} };
}

/** Re-reads `changed` objectives (labels) of the learner's evidence; mutates `contributions` and `delta`. */
export function contribute(
  evidence: Readonly<Record<string, ObjectiveEvidence>>,
  changed: readonly string[],
  population: PopulationRates,
  prerequisites: Prerequisites,
  contributions: Contributions,
  delta: StatisticsDelta,
): void {
  const reading = new LearnerReading(evidence, population, prerequisites);
  const speed = reading.typicalSpeed;
  const region = learnerRegion(Object.keys(evidence), prerequisites);
  const local = new Map(region.map((k, i) => [k, i]));
  const beliefs = scopeBeliefs(
    { prereqs: region.map((k) => prerequisites(k).flatMap((p) => (local.has(p) ? [local.get(p)!] : []))) },
    region.map((k): LocalFactor => reading.factor(k)),
  );
  for (const k of changed) {
    const e = evidence[k];
    const i = local.get(k);
    if (!e || i === undefined) continue;
    // Only what the prerequisites say (whether the objective could be learned at all): what its
    // dependents say would be read back into the same rates (a stalled dependent is blamed on a
    // prerequisite under a learning rate set too high, and the prerequisite's right answers then
    // become guesses), so the estimate could run away with itself.
    const context = { fromBelow: beliefs.fromBelow[i]!, fromAbove: 0 };
    contributions.objectives[k] = contributionDelta(k, e, reading.rates(k, speed), contributions.objectives[k], delta, context);
  }
  contributions.speed = speedDelta(reading.speed.meanLog2, contributions.speed, delta);
}

/**
 * The touched objectives, prerequisites first (a topological order). A prerequisite the learner never
 * worked on is left out, that is, taken as no obstacle: it lies outside what the learner was given
 * to work on (a goal's scope), and reading it at its prior would explain every right answer above it
 * as a guess (the estimates then run away towards "nobody knows anything").
 */
function learnerRegion(touched: readonly string[], prerequisites: Prerequisites): string[] {
  const inRegion = new Set(touched);
  const order: string[] = [];
  const state = new Map<string, 1 | 2>();
  const visit = (k: string) => {
    if (state.get(k)) return;
    state.set(k, 1);
    for (const p of prerequisites(k)) if (inRegion.has(p) && !state.get(p)) visit(p);
    state.set(k, 2);
    order.push(k);
  };
  for (const k of [...inRegion].sort()) visit(k);
  return order;
}
