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
import { type EpisodeContext, type EpisodeRates, type SmoothedEpisode, smooth } from "./episode";
import { type ObjectiveEvidence, RIGHT, stepItem, stepOutcome, TAUGHT } from "./evidence";

export interface ItemCounts {
  /** expected answers given knowing the objective, and right among them; the same not knowing it */
  known: number;
  knownRight: number;
  unknown: number;
  unknownRight: number;
}

export interface ObjectiveCounts {
  /** episodes (weighted by P(their prerequisites were known)) and how many started known */
  episodes: number;
  knownAtStart: number;
  /** opportunities taken while learnable (weighted by the learner's speed) and the learnings they brought */
  learnOpportunities: number;
  learnings: number;
  teachOpportunities: number;
  teachings: number;
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
  return { episodes: 0, knownAtStart: 0, learnOpportunities: 0, learnings: 0, teachOpportunities: 0, teachings: 0 };
}

/** Adds to an item's counts: `dKnown` more expected answers knowing the objective, `dTotal` more answers in all. */
function addAnswer(delta: StatisticsDelta, item: string, objective: string, dKnown: number, dTotal: number, right: boolean): void {
  const c = delta.items[item] ?? { objective, known: 0, knownRight: 0, unknown: 0, unknownRight: 0 };
  delta.items[item] = c;
  c.known += dKnown;
  c.unknown += dTotal - dKnown;
  if (right) {
    c.knownRight += dKnown;
    c.unknownRight += dTotal - dKnown;
  }
}

function objectiveCounts(s: SmoothedEpisode, speed: number): ObjectiveCounts {
  return {
    episodes: s.prerequisitesKnown,
    knownAtStart: s.knownAtStart,
    learnOpportunities: s.learnOpportunities * speed,
    learnings: s.learnings,
    teachOpportunities: s.teachOpportunities * speed,
    teachings: s.teachings,
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
    const now = s.known[j] as number;
    const was = previous?.known[j + shift];
    if (was === undefined) addAnswer(delta, stepItem(e, step), objective, now, 1, outcome === RIGHT);
    else addAnswer(delta, stepItem(e, step), objective, now - was, 0, outcome === RIGHT);
  }
  const counts = objectiveCounts(s, rates.speed);
  const target = delta.objectives[objective] ?? emptyObjectiveCounts();
  delta.objectives[objective] = target;
  const before = previous?.counts ?? emptyObjectiveCounts();
  for (const key of Object.keys(counts) as (keyof ObjectiveCounts)[]) target[key] += counts[key] - before[key];
  return { folded, known: s.known, counts };
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
    const t = totals.items[item] ?? { objective: c.objective, known: 0, knownRight: 0, unknown: 0, unknownRight: 0 };
    totals.items[item] = t;
    t.known += c.known;
    t.knownRight += c.knownRight;
    t.unknown += c.unknown;
    t.unknownRight += c.unknownRight;
  }
  for (const [objective, c] of Object.entries(delta.objectives)) {
    const t = totals.objectives[objective] ?? emptyObjectiveCounts();
    totals.objectives[objective] = t;
    for (const key of Object.keys(c) as (keyof ObjectiveCounts)[]) t[key] += c[key];
  }
  totals.speed.learners += delta.speed.learners;
  totals.speed.logSquares += delta.speed.logSquares;
}
