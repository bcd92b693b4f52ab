/**
 * One learner read with a population's rates: the learner's speed, and each objective's evidence as
 * a local factor of the scope's network (beliefs.ts), the learner's speed uncertainty integrated
 * out (with the objective's own evidence left out of the speed, so it is not counted twice).
 * Computed once per request; everything in it is lazy and memoized.
 */
import type { LocalFactor } from "./beliefs";
import { type EpisodeRates, forward, smooth } from "./episode";
import type { ObjectiveEvidence } from "./evidence";
import { itemRates, LEAK, objectiveRates, type PopulationRates } from "./rates";
import { SPEEDS, type SpeedPosterior, speedPosterior, weightsWithout } from "./speed";

/** log-odds of "known now" that stand for certainty */
const KNOWN_NOW = 40;

export function episodeRates(population: PopulationRates, objective: string, speed: number): EpisodeRates {
  const o = objectiveRates(population, objective);
  return { objective: o, item: (label) => itemRates(population, label, o), speed };
}

export class LearnerReading {
  #speed: SpeedPosterior | undefined;
  readonly #factors = new Map<string, LocalFactor>();
  readonly #startKnown = new Map<string, number>();
  readonly #worked = new Map<string, readonly string[]>();
  readonly #atStart = new Map<string, number>();

  /** `prerequisites`: the graph's prerequisite relation by label (none given: every objective a root). */
  constructor(
    readonly evidence: Readonly<Record<string, ObjectiveEvidence>>,
    readonly population: PopulationRates,
    readonly prerequisites: (objective: string) => readonly string[] = () => [],
  ) {}

  get speed(): SpeedPosterior {
    this.#speed ??= speedPosterior(this.evidence, (k, s) => this.rates(k, s), this.population.speedSpread);
    return this.#speed;
  }

  /**
   * P(the objective's prerequisites were known before the learner began on them here): the product,
   * over the distinct ancestors the learner worked on, of P(known at the start of its episode | known
   * now) by that ancestor's own evidence (knowing it now is what the prerequisites being known means;
   * the chain rule over the ancestors in topological order, each counted once however many paths
   * lead to it). One never worked on is no evidence either way (taken as known, as contribute.ts does).
   */
  startKnown(objective: string): number {
    let p = this.#startKnown.get(objective);
    if (p === undefined) {
      p = 1;
      for (const q of this.#workedAncestors(objective)) p *= this.#knownAtStartIfKnownNow(q);
      this.#startKnown.set(objective, p);
    }
    return p;
  }

  /** The objective's ancestors (prerequisites, theirs, ...) the learner has evidence on, each once. */
  #workedAncestors(objective: string): readonly string[] {
    let set = this.#worked.get(objective);
    if (!set) {
      const all = new Set<string>();
      for (const q of this.prerequisites(objective)) {
        for (const a of this.#workedAncestors(q)) all.add(a);
        const e = this.evidence[q];
        if (e && (e.steps.length || e.foldedAnswers)) all.add(q);
      }
      set = [...all];
      this.#worked.set(objective, set);
    }
    return set;
  }

  #knownAtStartIfKnownNow(objective: string): number {
    let p = this.#atStart.get(objective);
    if (p === undefined) {
      p = smooth(this.evidence[objective]!, episodeRates(this.population, objective, 1), { fromBelow: 1, fromAbove: KNOWN_NOW }).knownAtStart;
      this.#atStart.set(objective, p);
    }
    return p;
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

  #compute(objective: string): LocalFactor {
    const ends = this.speed.ends.get(objective);
    if (!ends) {
      const end = forward(
        { items: [], steps: [], foldedAnswers: 0, foldedRight: 0, foldedTaught: 0, answers: 0, right: 0, work: 0, last: 0 },
        this.rates(objective),
      );
      return {
        known: end.known,
        unknown: end.partial + end.unknown,
        blocked: end.blocked,
        leakKnown: LEAK,
        leakUnknown: 1 - LEAK,
        startKnown: this.startKnown(objective),
      };
    }
    const w = weightsWithout(this.speed, objective);
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
