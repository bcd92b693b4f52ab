/**
 * A graph's rates from its population statistics (statistics.ts): the maximization step of EM, with
 * every rate a weighted mean of the population's own evidence and the level above it (graph ←
 * PRIORS, objective ← graph, item ← objective). A new graph gets the priors; a new objective its
 * graph's rates; an item few learners answered its objective's. Bounds keep the model non-degenerate.
 * The blocked rate is not estimated: it stays the prior (rates.ts PRIORS.blocked), a stated
 * assumption rather than a fit, since what a class's stalled episodes would say of it is the same
 * evidence a slow learner gives.
 */
import { BOUNDS, type ItemRates, type ObjectiveRates, type PopulationRates, PRIORS, priorRates, SHRINK } from "./rates";
import { emptyObjectiveCounts, type ObjectiveCounts, type StatisticsDelta } from "./statistics";

const clamp = (x: number, [lo, hi]: readonly [number, number]) => Math.min(hi, Math.max(lo, x));

/** (successes + weight × prior) / (trials + weight): the mean of a Beta posterior. */
const shrink = (successes: number, trials: number, prior: number, weight: number) => (Math.max(0, successes) + weight * prior) / (Math.max(0, trials) + weight);

interface AnswerSums {
  known: number;
  knownRight: number;
  unknown: number;
  unknownRight: number;
}

/** How many observations the level above counts as, per rate (PRIORS' weights at the graph, SHRINK below it). */
type Weights = Readonly<Record<"guess" | "slip" | "prior" | "learn" | "teach" | "gradual", number>>;

const GRAPH_WEIGHTS: Weights = {
  guess: PRIORS.guess.weight,
  slip: PRIORS.slip.weight,
  prior: PRIORS.prior.weight,
  learn: PRIORS.learn.weight,
  teach: PRIORS.teach.weight,
  gradual: PRIORS.gradual.weight,
};

function guessSlip(c: AnswerSums, above: ItemRates, w: Pick<Weights, "guess" | "slip">): ItemRates {
  const guess = clamp(shrink(c.unknownRight, c.unknown, above.guess, w.guess), BOUNDS.guess);
  const slip = clamp(shrink(c.known - c.knownRight, c.known, above.slip, w.slip), BOUNDS.slip);
  // An answer must say more when the objective is known: keep guess + slip below 0.9.
  return { guess: Math.min(guess, 0.9 - slip), slip };
}

function objectiveLevel(c: ObjectiveCounts, answers: AnswerSums, above: ObjectiveRates, w: Weights): ObjectiveRates {
  return {
    ...guessSlip(answers, above, w),
    prior: clamp(shrink(c.knownAtStart, c.episodes, above.prior, w.prior), BOUNDS.prior),
    learn: clamp(shrink(c.learnings, c.learnOpportunities, above.learn, w.learn), BOUNDS.learn),
    teach: clamp(shrink(c.teachings, c.teachOpportunities, above.teach, w.teach), BOUNDS.learn),
    blocked: PRIORS.blocked.mean,
    gradual: clamp(shrink(c.partialEntries, c.partialEntries + c.directEntries, above.gradual, w.gradual), BOUNDS.gradual),
  };
}

export function estimateRates(totals: StatisticsDelta, version: string): PopulationRates {
  const zero = (): AnswerSums => ({ known: 0, knownRight: 0, unknown: 0, unknownRight: 0 });
  const byObjective = new Map<string, AnswerSums>();
  const all = zero();
  let answers = 0;
  for (const c of Object.values(totals.items)) {
    answers += c.known + c.unknown + c.partial;
    const o = byObjective.get(c.objective) ?? zero();
    byObjective.set(c.objective, o);
    for (const s of [o, all]) {
      s.known += c.known;
      s.knownRight += c.knownRight;
      s.unknown += c.unknown;
      s.unknownRight += c.unknownRight;
    }
  }
  const sum = emptyObjectiveCounts();
  for (const c of Object.values(totals.objectives)) for (const key of Object.keys(sum) as (keyof ObjectiveCounts)[]) sum[key] += c[key];

  const graph = objectiveLevel(sum, all, priorRates(), GRAPH_WEIGHTS);
  // Instruction is assumed as good as practice until the population shows otherwise.
  graph.teach = clamp(shrink(sum.teachings, sum.teachOpportunities, graph.learn, PRIORS.teach.weight), BOUNDS.learn);

  const objectives: Record<string, ObjectiveRates> = {};
  for (const label of new Set([...Object.keys(totals.objectives), ...byObjective.keys()])) {
    objectives[label] = objectiveLevel(totals.objectives[label] ?? emptyObjectiveCounts(), byObjective.get(label) ?? zero(), graph, SHRINK.objective);
  }
  const items: Record<string, ItemRates> = {};
  for (const [label, c] of Object.entries(totals.items)) items[label] = guessSlip(c, objectives[c.objective] ?? graph, SHRINK.item);

  const spread = Math.sqrt(shrink(totals.speed.logSquares, totals.speed.learners, PRIORS.speedSpread.mean ** 2, PRIORS.speedSpread.weight));
  return { version, answers, graph, objectives, items, speedSpread: clamp(spread, BOUNDS.speedSpread) };
}
