/**
 * One objective's evidence read as knowledge tracing (Corbett & Anderson 1995) with three hidden
 * states: K the learner knows it, U does not but can learn it, N cannot learn it (blocked). An item
 * is answered right with probability 1 − slip in K, guess in U and N; after each opportunity (an
 * answer or an instructional atom) U turns into K with the objective's learn (teach) rate, scaled by
 * the learner's speed s: 1 − (1 − rate)^s. The learner starts in K with the objective's prior (given
 * its prerequisites are known), else in N with the blocked rate, else in U.
 *
 * `forward` gives the end state of the episode (for the graph's beliefs and the stuck test);
 * `smooth` every step's posterior given the whole episode (forward–backward), which is what the
 * population statistics are made of (statistics.ts). Both are O(steps kept).
 */
import { type ObjectiveEvidence, RIGHT, stepItem, stepOutcome, TAUGHT } from "./evidence";
import { type ItemRates, LEAK, type ObjectiveRates } from "./rates";

export interface EpisodeRates {
  objective: ObjectiveRates;
  item(label: string): ItemRates;
  /** the learner's speed multiplier */
  speed: number;
  /**
   * P(the prerequisites were already known when the learner began on the objective; default 1): the
   * prior applies only then. A learner who learned a prerequisite here did not know what builds on it
   * beforehand, whatever the population's prior (reading.ts computes it from the prerequisites' own episodes).
   */
  startKnown?: number;
}

/** The episode's end: probability mass of each state jointly with the evidence, scaled by exp(logScale). */
export interface EpisodeEnd {
  known: number;
  unknown: number;
  blocked: number;
  logScale: number;
  /** log P(evidence | unknown throughout, never learnable): every answer a guess */
  logGuessing: number;
  /** log P(evidence | known throughout) */
  logKnowing: number;
}

export const effectiveRate = (rate: number, speed: number): number => 1 - (1 - rate) ** speed;

interface Prefix {
  k: number;
  u: number;
  n: number;
  /** log-likelihoods of the folded answers if known / unknown throughout */
  logK: number;
  logU: number;
}

/**
 * What the rest of the learner's scope says of an objective (beliefs.ts): P(all its prerequisites
 * known) and the log-odds of "known now" from the objectives above it. Without it, the prerequisites
 * are taken as known and nothing is heard from above.
 */
export interface EpisodeContext {
  fromBelow: number;
  fromAbove: number;
}

/** Start masses: known (by the prior, or by the leak while a prerequisite is missing), learnable, never learnable. */
function start(r: EpisodeRates, c: EpisodeContext | undefined): [number, number, number] {
  const o = r.objective;
  const below = c?.fromBelow ?? 1;
  const prior = priorOf(r);
  return [prior * below + LEAK * (1 - below), (1 - prior) * (1 - o.blocked) * below, (1 - prior) * o.blocked * below + (1 - LEAK) * (1 - below)];
}

/** The prior of knowing the objective at the start of its episode: only if its prerequisites were known by then. */
const priorOf = (r: EpisodeRates) => r.objective.prior * (r.startKnown ?? 1);

/** The state masses after the folded steps (learning inside them is counted, their answers as guesses). */
function prefix(e: ObjectiveEvidence, r: EpisodeRates, c?: EpisodeContext): Prefix {
  const o = r.objective;
  const fa = e.foldedAnswers;
  const fr = e.foldedRight;
  const logK = fr * Math.log(1 - o.slip) + (fa - fr) * Math.log(o.slip);
  const logU = fr * Math.log(o.guess) + (fa - fr) * Math.log(1 - o.guess);
  const survive = (1 - effectiveRate(o.learn, r.speed)) ** fa * (1 - effectiveRate(o.teach, r.speed)) ** e.foldedTaught;
  const [k0, u0, n0] = start(r, c);
  if (fa + e.foldedTaught === 0) return { k: k0, u: u0, n: n0, logK: 0, logU: 0 };
  // Scale both paths by the larger likelihood to stay in range.
  const m = Math.max(logK, logU);
  const eK = Math.exp(logK - m);
  const eU = Math.exp(logU - m);
  return { k: (k0 * eK + u0 * (1 - survive) * eU) * Math.exp(m), u: u0 * survive * eU * Math.exp(m), n: n0 * eU * Math.exp(m), logK, logU };
}

function emission(step: number, e: ObjectiveEvidence, r: EpisodeRates): [number, number] {
  const outcome = stepOutcome(step);
  if (outcome === TAUGHT) return [1, 1];
  const it = r.item(stepItem(e, step));
  return outcome === RIGHT ? [1 - it.slip, it.guess] : [it.slip, 1 - it.guess];
}

export function forward(e: ObjectiveEvidence, r: EpisodeRates): EpisodeEnd {
  const p = prefix(e, r);
  let k = p.k;
  let u = p.u;
  let n = p.n;
  let logScale = 0;
  let logGuessing = p.logU;
  let logKnowing = p.logK;
  const learn = effectiveRate(r.objective.learn, r.speed);
  const teach = effectiveRate(r.objective.teach, r.speed);
  for (const step of e.steps) {
    const [eK, eU] = emission(step, e, r);
    logGuessing += Math.log(eU);
    logKnowing += Math.log(eK);
    const t = stepOutcome(step) === TAUGHT ? teach : learn;
    const fk = k * eK;
    const fu = u * eU;
    const fn = n * eU;
    k = fk + t * fu;
    u = (1 - t) * fu;
    n = fn;
    const z = k + u + n;
    if (z > 0) {
      k /= z;
      u /= z;
      n /= z;
      logScale += Math.log(z);
    }
  }
  return { known: k, unknown: u, blocked: n, logScale, logGuessing, logKnowing };
}

/** log P(evidence) under the rates (all three states summed). */
export function logEvidence(end: EpisodeEnd): number {
  return Math.log(end.known + end.unknown + end.blocked) + end.logScale;
}

/** What the whole episode says, step by step (forward–backward). */
export interface SmoothedEpisode {
  /** per kept step: P(known when the step happened) (for an instructional step: before it) */
  known: number[];
  /** P(known before the first step, folded ones included, by the prior: the prerequisites known) */
  knownAtStart: number;
  /** P(the prerequisites are known, and were when the episode began): the weight of this episode in the prior's estimate */
  prerequisitesKnown: number;
  /** expected practice / instruction opportunities taken while unknown and learnable, and expected learnings at them */
  learnOpportunities: number;
  learnings: number;
  teachOpportunities: number;
  teachings: number;
}

export function smooth(e: ObjectiveEvidence, r: EpisodeRates, context?: EpisodeContext): SmoothedEpisode {
  const p = prefix(e, r, context);
  const learn = effectiveRate(r.objective.learn, r.speed);
  const teach = effectiveRate(r.objective.teach, r.speed);
  const steps = e.steps;
  const m = steps.length;
  // Forward, normalized per step: a[j] = state masses at step j before its emission.
  const a: [number, number, number][] = [];
  const em: [number, number][] = [];
  const rate: number[] = [];
  const z0 = p.k + p.u + p.n;
  let k = p.k / z0;
  let u = p.u / z0;
  let n = p.n / z0;
  for (const step of steps) {
    a.push([k, u, n]);
    const eKU = emission(step, e, r);
    em.push(eKU);
    const t = stepOutcome(step) === TAUGHT ? teach : learn;
    rate.push(t);
    const fk = k * eKU[0];
    const fu = u * eKU[1];
    const fn = n * eKU[1];
    k = fk + t * fu;
    u = (1 - t) * fu;
    n = fn;
    const z = k + u + n;
    k /= z;
    u /= z;
    n /= z;
  }
  // Backward: b = likelihood of the rest given the state after step j's transition (normalized),
  // starting from what the objectives above say of "known now".
  const above = 1 / (1 + Math.exp(-(context?.fromAbove ?? 0)));
  let bk = above;
  let bu = 1 - above;
  let bn = 1 - above;
  const known: number[] = new Array(m);
  let learnOpp = 0;
  let learned = 0;
  let teachOpp = 0;
  let taught = 0;
  for (let j = m - 1; j >= 0; j--) {
    const [ak, au, an] = a[j] as [number, number, number];
    const [eK, eU] = em[j] as [number, number];
    const t = rate[j] as number;
    // Joint of (state at j) and everything from j on, for each state.
    const jk = ak * eK * bk;
    const juStay = au * eU * (1 - t) * bu;
    const juLearn = au * eU * t * bk;
    const jn = an * eU * bn;
    const z = jk + juStay + juLearn + jn;
    known[j] = jk / z;
    const taughtStep = stepOutcome(steps[j] as number) === TAUGHT;
    if (taughtStep) {
      teachOpp += (juStay + juLearn) / z;
      taught += juLearn / z;
    } else {
      learnOpp += (juStay + juLearn) / z;
      learned += juLearn / z;
    }
    // Step the backward message over step j (emission and transition).
    const nbk = eK * bk;
    const nbu = eU * (t * bk + (1 - t) * bu);
    const nbn = eU * bn;
    const s = nbk + nbu + nbn;
    bk = nbk / s;
    bu = nbu / s;
    bn = nbn / s;
  }
  // Before the first kept step: the prefix's paths (start K, learned in the folded steps, U, N).
  const [k0, u0, n0] = start(r, context);
  const below = context?.fromBelow ?? 1;
  const byPrior = (priorOf(r) * below) / Math.max(1e-12, k0);
  const mx = Math.max(p.logK, p.logU);
  const eK0 = Math.exp(p.logK - mx);
  const eU0 = Math.exp(p.logU - mx);
  const folded = e.foldedAnswers + e.foldedTaught;
  const survive = folded ? (1 - learn) ** e.foldedAnswers * (1 - teach) ** e.foldedTaught : 1;
  const startK = k0 * eK0 * bk;
  const learnedInPrefix = u0 * (1 - survive) * eU0 * bk;
  const stayU = u0 * survive * eU0 * bu;
  const startN = n0 * eU0 * bn;
  const z = startK + learnedInPrefix + stayU + startN;
  if (folded) {
    learnOpp += ((learnedInPrefix + stayU) / z) * e.foldedAnswers;
    learned += learnedInPrefix / z;
  }
  return {
    known,
    knownAtStart: (startK / z) * byPrior,
    prerequisitesKnown: below * (r.startKnown ?? 1),
    learnOpportunities: learnOpp,
    learnings: learned,
    teachOpportunities: teachOpp,
    teachings: taught,
  };
}
