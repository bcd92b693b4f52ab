/**
 * One learner read with a population's rates: the learner's speed, and each objective's evidence as
 * a local factor of the scope's network (beliefs.ts), the learner's speed uncertainty integrated
 * out (with the objective's own evidence left out of the speed, so it is not counted twice).
 * Computed once per request; everything in it is lazy and memoized.
 */
import type { LocalFactor } from "./beliefs";
import { type EpisodeRates, forward, forwardAtSpeeds, knownAtStart } from "./episode";
import { newEvidence, type ObjectiveEvidence, worked } from "./evidence";
import { itemRates, LEAK, objectiveRates, type PopulationRates } from "./rates";
import { SPEEDS, type SpeedPosterior, slowTail, speedPosterior, weightsWithout } from "./speed";

export function episodeRates(population: PopulationRates, objective: string, speed: number): EpisodeRates {
  const o = objectiveRates(population, objective);
  return { objective: o, item: (label) => itemRates(population, label, o), speed };
}

/** The ancestors of an objective with no worked-on prerequisite. */
const NONE: ReadonlySet<string> = new Set();

export class LearnerReading {
  #speed: SpeedPosterior | undefined;
  readonly #factors = new Map<string, LocalFactor>();
  readonly #startKnown = new Map<string, number>();
  readonly #ownStarts = new Map<string, number>();
  readonly #ancestors = new Map<string, ReadonlySet<string>>();

  /** `prerequisites`: the graph's prerequisite relation by label (none given: every objective a root). */
  constructor(
    readonly evidence: Readonly<Record<string, ObjectiveEvidence>>,
    readonly population: PopulationRates,
    readonly prerequisites: (objective: string) => readonly string[] = () => [],
  ) {}

  get speed(): SpeedPosterior {
    this.#speed ??= speedPosterior(this.evidence, (k, e) => forwardAtSpeeds(e, this.rates(k, 1), SPEEDS), this.population.speedSpread);
    return this.#speed;
  }

  /**
   * P(the objective's prerequisites were known before the learner began on them here): the product,
   * over its ancestors the learner worked on (#workedAncestors), each counted once, of P(known at the
   * start of its own episode, given its own prerequisites were). A learner who learned an ancestor
   * here knew nothing that builds on it beforehand; one never worked on is no evidence either way
   * (taken as known, as contribute.ts does). Multiplying the direct prerequisites' own start readings
   * instead counts an ancestor once per path to it: in a graph with fan-in the product then fell to
   * nothing far from the roots, every right answer there read as learning, and the class's rates ran
   * away (docs/recommendation-history.md, "An ancestor counted once").
   */
  startKnown(objective: string): number {
    let p = this.#startKnown.get(objective);
    if (p === undefined) {
      p = 1;
      for (const a of this.#workedAncestors(objective)) p *= this.#ownStart(a);
      this.#startKnown.set(objective, p);
    }
    return p;
  }

  /**
   * The objective's ancestors the learner worked on, each once, reached through objectives it worked
   * on (an objective never worked on ends the walk, as it ends what the learner's evidence says: the
   * cost stays with the learner's evidence, not the graph's depth).
   */
  #workedAncestors(objective: string): ReadonlySet<string> {
    let set = this.#ancestors.get(objective);
    if (set) return set;
    const direct = this.prerequisites(objective).filter((q) => worked(this.evidence[q]));
    // (most objectives of a scope have none: one shared empty set, not one per objective per reading)
    set = direct.length ? new Set(direct.flatMap((q) => [q, ...this.#workedAncestors(q)])) : NONE;
    this.#ancestors.set(objective, set);
    return set;
  }

  /** P(known at the start of its own episode, its prerequisites known then) of an objective the learner worked on. */
  #ownStart(objective: string): number {
    let p = this.#ownStarts.get(objective);
    if (p === undefined) {
      p = knownAtStart(this.evidence[objective]!, { ...episodeRates(this.population, objective, 1), startKnown: 1 });
      this.#ownStarts.set(objective, p);
    }
    return p;
  }

  /**
   * P(the learner knows the objective, or part of it, after its kept steps read alone as an episode
   * that began unknown (the earlier, folded answers and the prior left out), at the learner's typical
   * speed). The episode's model makes the objective learnable from the start; a learner who reached it
   * before a prerequisite and learned that prerequisite later stalls first and learns after, which the
   * whole episode reads as blocked once the stall outlasts the learning rate. The latest steps alone
   * still read such a learner as knowing. "Began unknown" keeps the blocked state's start share. The
   * typical speed counts this objective's own evidence too (the other readings leave it out): a long
   * stall makes the learner slower, which reads the latest right answers less as learning, so the
   * flag errs towards being kept. 0 when no state explains the steps (only rates built by hand, with
   * no guessing, allow that), so that the flag is not withheld on a reading that says nothing.
   */
  knowsLately(objective: string): number {
    const e = this.evidence[objective];
    if (!e || e.steps.length === 0) return 0;
    const rates = episodeRates(this.population, objective, this.typicalSpeed);
    const kept: ObjectiveEvidence = { ...e, foldedAnswers: 0, foldedRight: 0, foldedTaught: 0 };
    const end = forward(kept, { ...rates, objective: { ...rates.objective, prior: 0 } });
    const all = end.known + end.partial + end.unknown + end.blocked;
    return all > 0 ? (end.known + end.partial) / all : 0;
  }

  /** The learner's speed multiplier (posterior geometric mean). */
  get typicalSpeed(): number {
    return Math.exp(this.speed.meanLog);
  }

  rates(objective: string, speed = this.typicalSpeed): EpisodeRates {
    return { ...episodeRates(this.population, objective, speed), startKnown: this.startKnown(objective) };
  }

  /** The objective's evidence under each case of its prerequisites, the learner's speed integrated out. */
  factor(objective: string): LocalFactor {
    let f = this.#factors.get(objective);
    if (!f) {
      f = this.#compute(objective);
      this.#factors.set(objective, f);
    }
    return f;
  }

  /**
   * The objective's evidence as `factor` reads it, but with the learner's speed conditioned on the
   * slowest `tail` of its posterior from the other objectives: the reading of a learner as slow as the
   * rest of its evidence plausibly allows.
   */
  slowFactor(objective: string, tail: number): LocalFactor {
    if (!this.speed.ends.has(objective)) return this.factor(objective);
    return this.#compute(objective, slowTail(weightsWithout(this.speed, objective), tail));
  }

  #compute(objective: string, weights?: readonly number[]): LocalFactor {
    const ends = this.speed.ends.get(objective);
    if (!ends) {
      const end = forward(newEvidence(), this.rates(objective));
      return { known: end.known, unknown: end.partial + end.unknown, blocked: end.blocked, leakKnown: LEAK, leakUnknown: 1 - LEAK };
    }
    const w = weights ?? weightsWithout(this.speed, objective);
    const first = ends[0]!;
    const scale = Math.max(first.logGuessing, first.logKnowing, ...ends.map((e) => e.logScale));
    let known = 0;
    let unknown = 0;
    let blocked = 0;
    for (let i = 0; i < SPEEDS.length; i++) {
      const e = ends[i]!;
      const m = w[i]! * Math.exp(e.logScale - scale);
      known += m * e.known;
      unknown += m * (e.partial + e.unknown);
      blocked += m * e.blocked;
    }
    return {
      known,
      unknown,
      blocked,
      leakKnown: LEAK * Math.exp(first.logKnowing - scale),
      leakUnknown: (1 - LEAK) * Math.exp(first.logGuessing - scale),
    };
  }
}
