/**
 * The population statistics a graph's rates are estimated from (estimate.ts), and each
 * registration's share of them.
 *
 * Every registration contributes, per objective it worked on, the expected counts its episode
 * implies under the current rates and the rest of the learner's evidence (episode.ts `smooth` with
 * the objective's context in the learner's graph): per answer, how likely the item was answered
 * knowing the objective or not, and right or not (guess and slip); per objective, whether the learner
 * knew it at the start (prior), the opportunities taken while it could be learned (its prerequisites
 * known) and the learnings they brought (learn, teach); per learner, the spread of its speed. This is the expectation step of EM, re-done for an objective whenever its
 * evidence grows: the registration sends the difference to what it sent before (`contributionDelta`),
 * so the graph's totals always hold each registration's latest reading, and a reading is replaced,
 * never counted twice. Steps folded out of the evidence (evidence.ts KEEP) keep their last reading.
 * Only anonymous sums leave the registration.
 */
import { type EpisodeContext, type EpisodeRates, effectiveRate, type SmoothedEpisode, smooth } from "./episode";
import { type ObjectiveEvidence, RIGHT, stepItem, stepOutcome, TAUGHT } from "./evidence";

export interface ItemCounts {
  /** expected answers given knowing the objective, and right among them; the same given not knowing any of it (a guess) */
  known: number;
  knownRight: number;
  unknown: number;
  unknownRight: number;
  /** expected answers given knowing part of it (they count for neither guess nor slip) */
  partial: number;
}

export interface ObjectiveCounts {
  /** episodes (weighted by P(their prerequisites were known)) and how many started known */
  episodes: number;
  knownAtStart: number;
  /** opportunities taken while learnable (each weighted by the learner's effective rate over the rate: `opportunityWeight`) and the learnings they brought */
  learnOpportunities: number;
  learnings: number;
  teachOpportunities: number;
  teachings: number;
  /** learnings from unknown into knowing part of it, and straight into knowing it */
  partialEntries: number;
  directEntries: number;
}

export interface SpeedCounts {
  learners: number;
  /** sum over learners of E[(log speed)²] */
  logSquares: number;
}

/** Counts to add to a graph's totals (a delta: entries may be negative). */
export interface StatisticsDelta {
  items: Record<string, ItemCounts & { objective: string }>;
  objectives: Record<string, ObjectiveCounts>;
  speed: SpeedCounts;
}

/** What a registration last contributed for one objective. */
export interface ObjectiveContribution {
  /** folded steps of the evidence when it was read */
  folded: number;
  /** P(known) per kept step then */
  known: number[];
  /** P(guessing: neither known nor partly known) per kept step then (absent in contributions made before the partial state: 1 − known) */
  guessing?: number[];
  counts: ObjectiveCounts;
}

/** What a registration last contributed for its speed. */
export interface SpeedContribution {
  logSquare: number;
}

export function emptyDelta(): StatisticsDelta {
  return { items: {}, objectives: {}, speed: { learners: 0, logSquares: 0 } };
}

export function emptyObjectiveCounts(): ObjectiveCounts {
  return { episodes: 0, knownAtStart: 0, learnOpportunities: 0, learnings: 0, teachOpportunities: 0, teachings: 0, partialEntries: 0, directEntries: 0 };
}

/** Adds to an item's counts: `dKnown` more expected answers knowing the objective, `dGuessing` more guessing, `dPartial` more knowing part of it. */
function addAnswer(delta: StatisticsDelta, item: string, objective: string, dKnown: number, dGuessing: number, dPartial: number, right: boolean): void {
  const c = delta.items[item] ?? { objective, known: 0, knownRight: 0, unknown: 0, unknownRight: 0, partial: 0 };
  delta.items[item] = c;
  c.known += dKnown;
  c.unknown += dGuessing;
  c.partial = (c.partial ?? 0) + dPartial;
  if (right) {
    c.knownRight += dKnown;
    c.unknownRight += dGuessing;
  }
}

/**
 * An opportunity's weight in its rate's denominator: the learner's effective rate over the rate
 * (1 − (1 − rate)^speed) / rate, so that the expected learnings equal rate × the weighted
 * opportunities at the true rate given the learners' speeds, and the estimate (learnings over
 * weighted opportunities) is unbiased. The speed itself as the weight (the linear approximation of
 * the effective rate) understates a fast learner's chance per opportunity and pulled the rate down
 * where learning is fast; the learners' speeds then rose to make up for it, away from the speed
 * prior's centre (measured on family world 26: a rate of 0.46 read as about 0.2, its learners ×1.7 fast).
 */
const opportunityWeight = (rate: number, speed: number) => effectiveRate(rate, speed) / rate;

function objectiveCounts(s: SmoothedEpisode, rates: EpisodeRates): ObjectiveCounts {
  return {
    episodes: s.prerequisitesKnown,
    knownAtStart: s.knownAtStart,
    learnOpportunities: s.learnOpportunities * opportunityWeight(rates.objective.learn, rates.speed),
    learnings: s.learnings,
    teachOpportunities: s.teachOpportunities * opportunityWeight(rates.objective.teach, rates.speed),
    teachings: s.teachings,
    partialEntries: s.partialEntries,
    directEntries: s.directEntries,
  };
}

/**
 * Re-reads one objective's evidence under `rates`, adds the difference to what was contributed
 * before (`previous`) to `delta`, and returns the new contribution to remember.
 */
export function contributionDelta(
  objective: string,
  e: ObjectiveEvidence,
  rates: EpisodeRates,
  previous: ObjectiveContribution | undefined,
  delta: StatisticsDelta,
  context?: EpisodeContext,
): ObjectiveContribution {
  const s = smooth(e, rates, context);
  const folded = e.foldedAnswers + e.foldedTaught;
  const shift = folded - (previous?.folded ?? folded);
  for (const [j, step] of e.steps.entries()) {
    const outcome = stepOutcome(step);
    if (outcome === TAUGHT) continue;
    const now = s.known[j]!;
    const nowGuessing = s.guessing[j]!;
    const was = previous?.known[j + shift];
    const wasGuessing = previous?.guessing?.[j + shift] ?? (was === undefined ? undefined : 1 - was);
    const right = outcome === RIGHT;
    const nowPartial = 1 - now - nowGuessing;
    if (was === undefined || wasGuessing === undefined) addAnswer(delta, stepItem(e, step), objective, now, nowGuessing, nowPartial, right);
    else addAnswer(delta, stepItem(e, step), objective, now - was, nowGuessing - wasGuessing, nowPartial - (1 - was - wasGuessing), right);
  }
  const counts = objectiveCounts(s, rates);
  const target = delta.objectives[objective] ?? emptyObjectiveCounts();
  delta.objectives[objective] = target;
  const before = previous?.counts ?? emptyObjectiveCounts();
  // (a contribution made before a count existed lacks it: 0)
  for (const key of Object.keys(counts) as (keyof ObjectiveCounts)[]) target[key] += counts[key] - (before[key] ?? 0);
  return { folded, known: s.known, guessing: s.guessing, counts };
}

/** The learner's speed reading (E[(log speed)²] under the current posterior) as a delta. */
export function speedDelta(logSquare: number, previous: SpeedContribution | undefined, delta: StatisticsDelta): SpeedContribution {
  if (!previous) delta.speed.learners += 1;
  delta.speed.logSquares += logSquare - (previous?.logSquare ?? 0);
  return { logSquare };
}

/** Adds `delta` into running totals (the same shape). */
export function accumulate(totals: StatisticsDelta, delta: StatisticsDelta): void {
  for (const [item, c] of Object.entries(delta.items)) {
    const t = totals.items[item] ?? { objective: c.objective, known: 0, knownRight: 0, unknown: 0, unknownRight: 0, partial: 0 };
    totals.items[item] = t;
    t.known += c.known;
    t.knownRight += c.knownRight;
    t.unknown += c.unknown;
    t.unknownRight += c.unknownRight;
    // (a message queued before the partial count existed lacks it)
    t.partial += c.partial ?? 0;
  }
  for (const [objective, c] of Object.entries(delta.objectives)) {
    const t = totals.objectives[objective] ?? emptyObjectiveCounts();
    totals.objectives[objective] = t;
    for (const key of Object.keys(c) as (keyof ObjectiveCounts)[]) t[key] += c[key];
  }
  totals.speed.learners += delta.speed.learners;
  totals.speed.logSquares += delta.speed.logSquares;
}
