/**
 * The rates the engine's decisions depend on, as learned from a graph's population (estimate.ts):
 * per item how often it is answered right without mastery (guess) and missed with it (slip); per
 * objective how likely a learner who knows its prerequisites already knows it (prior), how fast
 * practice and instruction teach it (learn, teach) and how often a learner cannot learn it at all
 * (blocked); and how much learners differ in speed (speedSpread: sd of the log of a learner's speed).
 * Every value has a prior for a new graph, objective or item (PRIORS), and each level shrinks
 * towards the level above it (item → objective → graph → prior).
 */

export interface ItemRates {
  guess: number;
  slip: number;
}

export interface ObjectiveRates extends ItemRates {
  prior: number;
  learn: number;
  teach: number;
  blocked: number;
  /** P(a learner who learns it passes through knowing part of it first) rather than in one step (episode.ts) */
  gradual: number;
}

export interface PopulationRates {
  /** identifies the statistics the rates were computed from (a registration's decisions record it) */
  version: string;
  /** graded answers the statistics were read from: how much evidence the rates rest on (0 for the priors) */
  answers: number;
  graph: ObjectiveRates;
  objectives: Readonly<Record<string, ObjectiveRates>>;
  items: Readonly<Record<string, ItemRates>>;
  speedSpread: number;
}

/**
 * The priors: what the engine assumes of a graph nobody has answered yet. Guess and slip sit inside
 * the bounds knowledge-tracing fits keep (guess ≤ 0.3, slip ≤ 0.1 on ASSISTments: Baker, Corbett &
 * Aleven 2008) with some room: 0.2 and 0.1. Learning 0.2 per opportunity is the middle of the rates
 * such fits report (0.05–0.5); instruction is assumed no better than practice until the population
 * shows it. A learner knows a new objective beforehand with probability 0.3, is blocked on it with
 * 0.02 (not estimated: estimate.ts says why); learners' speeds differ by ×/÷ 1.4 (sd 0.35 of the
 * log). Learning is taken as mostly a switch, knowledge tracing's own assumption, with a quarter
 * of learnings passing through a partial stage (gradual 0.25), until the population shows otherwise;
 * at 0.1 `ready` came earlier for every learner, with more false readies on the continuous worlds
 * (575 world-targets against 581: docs/recommendation-history.md, "What the estimates cost today");
 * at even odds (0.5) a partner's three right answers in a row rarely completed a goal on a new graph
 * (docs/recommendation-history.md, the levels table). Each prior counts as `weight` observations (answers, opportunities or learners) against the
 * population's own. All but one are strong (10–20): guessing and slipping are properties of the
 * items' format, and learning rates vary within the ranges such fits report. How much of a graph a
 * class knows when it starts is not: anything from none of it to most (the prior, 2 learners' worth).
 * A strong prior there held a class that knew most of its graph at 0.3 long enough for the first
 * estimates to read the class's right answers as guesses (the guess at its bound after the first
 * round), and the decisions made in those rounds repeated what the learners knew
 * (docs/recommendation-history.md, "The first rounds of a class").
 */
export const PRIORS = {
  guess: { mean: 0.2, weight: 20 },
  slip: { mean: 0.1, weight: 20 },
  learn: { mean: 0.2, weight: 20 },
  teach: { mean: 0.2, weight: 10 },
  prior: { mean: 0.3, weight: 2 },
  gradual: { mean: 0.25, weight: 20 },
  blocked: { mean: 0.02 },
  speedSpread: { mean: 0.35, weight: 10 },
} as const;

/** P(an objective is known although a prerequisite is not): what the prerequisite graph does not capture. */
export const LEAK = 0.05;

/**
 * How strongly a lower level (objective, item) is pulled to the level above it (in observations),
 * per rate. Guess and slip are pulled ten times as hard as the others. A class answers an objective
 * most of its learners know once or twice each, and those answers cannot tell a guess from a learner
 * who knew it: a lower prior with a higher guess fits them as well as the truth. Pulled with 10 answers,
 * the estimates drifted along that ridge to the guess's bound (0.45 for a true 0.31 on the
 * objective most of family world 4's class knew; docs/recommendation-history.md, "Guess and slip
 * pulled to the graph's"). The graph's guess and slip, read from every objective at once, are where
 * the answers tell them apart; an objective or item moves from them on the evidence of about 100
 * answers.
 */
export const SHRINK = {
  objective: { guess: 100, slip: 100, prior: 10, learn: 10, teach: 10, gradual: 10 },
  /** (an item has a guess and a slip only) */
  item: { guess: 100, slip: 100 },
} as const;

/**
 * Bounds that keep a fitted model non-degenerate (a guess above 1 − slip would invert what an answer
 * means). Slip is at most 0.2: a learner who knows an objective misses at most one answer in five.
 * At 0.3 the continuous worlds' fits sat at the bound, the known state took in learners halfway up a
 * learning curve (right two times in three), and `ready` came before mastery: false-ready and the
 * partner's false-complete were met on 14 and 25 fewer of the 270 judging worlds
 * (docs/recommendation-history.md, "Six more trials").
 */
export const BOUNDS = {
  guess: [0.01, 0.45],
  slip: [0.01, 0.2],
  learn: [0.01, 0.95],
  prior: [0.01, 0.99],
  gradual: [0.02, 0.98],
  speedSpread: [0.05, 1],
} as const;

export function priorRates(): ObjectiveRates {
  return {
    guess: PRIORS.guess.mean,
    slip: PRIORS.slip.mean,
    prior: PRIORS.prior.mean,
    gradual: PRIORS.gradual.mean,
    learn: PRIORS.learn.mean,
    teach: PRIORS.teach.mean,
    blocked: PRIORS.blocked.mean,
  };
}

/** The rates of a graph nobody has answered yet. */
export function priorPopulation(): PopulationRates {
  return { version: "prior", answers: 0, graph: priorRates(), objectives: {}, items: {}, speedSpread: PRIORS.speedSpread.mean };
}

export function objectiveRates(p: PopulationRates, objective: string): ObjectiveRates {
  return p.objectives[objective] ?? p.graph;
}

export function itemRates(p: PopulationRates, item: string, objective: ObjectiveRates): ItemRates {
  return p.items[item] ?? objective;
}
