/**
 * One objective's evidence read as knowledge tracing (Corbett & Anderson 1995) with a gradual step:
 * K the learner knows it, P knows part of it, U does not but can learn it, N cannot learn it
 * (blocked). An item is answered right with probability 1 − slip in K, guess in U and N, and halfway
 * between in P. Each opportunity (an answer or an instructional atom) moves a learner in U on, and
 * one in P to K, with the objective's learn (teach) rate scaled by the learner's speed s:
 * 1 − (1 − rate)^s. Leaving U, the learner enters P with the objective's `gradual` share, else K at
 * once: learning that is a switch (knowledge tracing's own) and learning along a curve, where answers
 * are right only part of the time for a while, are both read, in the proportion the population shows
 * (estimate.ts). The learner starts in K with the objective's prior (given its
 * prerequisites are known), else in N with the blocked rate, else in U.
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
  partial: number;
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
  p: number;
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

/**
 * Where a learner who was in U before `answers` practice and `taught` instruction opportunities is
 * after them: still in U, in P, or in K. The two steps' rates differ by opportunity; their order is
 * not kept, so one per-opportunity rate with the same survival stands in for both.
 */
function passage(answers: number, taught: number, learn: number, teach: number, gradual: number): { stay: number; partial: number; reached: number } {
  const n = answers + taught;
  const stay = (1 - learn) ** answers * (1 - teach) ** taught;
  if (n === 0) return { stay: 1, partial: 0, reached: 0 };
  const q = 1 - stay ** (1 / n);
  const partial = q >= 1 ? 0 : n * q * gradual * (1 - q) ** (n - 1);
  return { stay, partial, reached: Math.max(0, 1 - stay - partial) };
}

/** The state masses after the folded steps (learning inside them is counted, their answers as guesses). */
function prefix(e: ObjectiveEvidence, r: EpisodeRates, c?: EpisodeContext): Prefix {
  const o = r.objective;
  const fa = e.foldedAnswers;
  const fr = e.foldedRight;
  const logK = fr * Math.log(1 - o.slip) + (fa - fr) * Math.log(o.slip);
  const logU = fr * Math.log(o.guess) + (fa - fr) * Math.log(1 - o.guess);
  const [k0, u0, n0] = start(r, c);
  if (fa + e.foldedTaught === 0) return { k: k0, p: 0, u: u0, n: n0, logK: 0, logU: 0 };
  const way = passage(fa, e.foldedTaught, effectiveRate(o.learn, r.speed), effectiveRate(o.teach, r.speed), o.gradual);
  // Scale both paths by the larger likelihood to stay in range.
  const m = Math.max(logK, logU);
  const eK = Math.exp(logK - m);
  const eU = Math.exp(logU - m);
  const scale = Math.exp(m);
  return {
    k: (k0 * eK + u0 * way.reached * eU) * scale,
    p: u0 * way.partial * eU * scale,
    u: u0 * way.stay * eU * scale,
    n: n0 * eU * scale,
    logK,
    logU,
  };
}

/** P(the step's outcome) in K, P and U (N answers as U does); an instructional step says nothing. */
function emission(step: number, e: ObjectiveEvidence, r: EpisodeRates): [number, number, number] {
  const outcome = stepOutcome(step);
  if (outcome === TAUGHT) return [1, 1, 1];
  const it = r.item(stepItem(e, step));
  const half = (it.guess + 1 - it.slip) / 2;
  return outcome === RIGHT ? [1 - it.slip, half, it.guess] : [it.slip, 1 - half, 1 - it.guess];
}

export function forward(e: ObjectiveEvidence, r: EpisodeRates): EpisodeEnd {
  const start = prefix(e, r);
  const m: Masses = { k: start.k, p: start.p, u: start.u, n: start.n };
  let logScale = 0;
  let logGuessing = start.logU;
  let logKnowing = start.logK;
  const learn = effectiveRate(r.objective.learn, r.speed);
  const teach = effectiveRate(r.objective.teach, r.speed);
  const phi = r.objective.gradual;
  for (const step of e.steps) {
    const [eK, eP, eU] = emission(step, e, r);
    logGuessing += Math.log(eU);
    logKnowing += Math.log(eK);
    logScale += advance(m, eK, eP, eU, stepOutcome(step) === TAUGHT ? teach : learn, phi);
  }
  return { known: m.k, partial: m.p, unknown: m.u, blocked: m.n, logScale, logGuessing, logKnowing };
}

/** The state masses (K, P, U, N) of a forward pass. */
interface Masses {
  k: number;
  p: number;
  u: number;
  n: number;
}

/**
 * One step of the forward pass, in place: the step's emissions in K, P and U (N as U), then the
 * moves at rate t (out of U into P with the share phi, else into K; P into K), normalized. Returns
 * the log of the normalizer (0 when no mass is left).
 */
function advance(m: Masses, eK: number, eP: number, eU: number, t: number, phi: number): number {
  const fk = m.k * eK;
  const fp = m.p * eP;
  const fu = m.u * eU;
  m.k = fk + t * fp + t * (1 - phi) * fu;
  m.p = (1 - t) * fp + t * phi * fu;
  m.u = (1 - t) * fu;
  m.n = m.n * eU;
  const z = m.k + m.p + m.u + m.n;
  if (!(z > 0)) return 0;
  m.k /= z;
  m.p /= z;
  m.u /= z;
  m.n /= z;
  return Math.log(z);
}

/**
 * `forward` at each of `speeds` (r's speed replaced by each), the same numbers bit for bit, with
 * what does not depend on the speed (each step's emissions, the guessing and knowing likelihoods)
 * computed once: the learner's speed posterior reads every objective at every grid speed.
 */
export function forwardAtSpeeds(e: ObjectiveEvidence, r: EpisodeRates, speeds: readonly number[]): EpisodeEnd[] {
  const steps = e.steps;
  const eKs = new Float64Array(steps.length);
  const ePs = new Float64Array(steps.length);
  const eUs = new Float64Array(steps.length);
  // (the folded answers' likelihoods, prefix's logU and logK, do not depend on the speed either)
  const folded = prefix(e, r);
  let logGuessing = folded.logU;
  let logKnowing = folded.logK;
  for (let j = 0; j < steps.length; j++) {
    const [eK, eP, eU] = emission(steps[j]!, e, r);
    eKs[j] = eK;
    ePs[j] = eP;
    eUs[j] = eU;
    logGuessing += Math.log(eU);
    logKnowing += Math.log(eK);
  }
  const phi = r.objective.gradual;
  return speeds.map((speed) => {
    const start = prefix(e, { ...r, speed });
    const m: Masses = { k: start.k, p: start.p, u: start.u, n: start.n };
    let logScale = 0;
    const learn = effectiveRate(r.objective.learn, speed);
    const teach = effectiveRate(r.objective.teach, speed);
    for (let j = 0; j < steps.length; j++) {
      logScale += advance(m, eKs[j]!, ePs[j]!, eUs[j]!, stepOutcome(steps[j]!) === TAUGHT ? teach : learn, phi);
    }
    return { known: m.k, partial: m.p, unknown: m.u, blocked: m.n, logScale, logGuessing, logKnowing };
  });
}

/** log P(evidence) under the rates (all three states summed). */
export function logEvidence(end: EpisodeEnd): number {
  return Math.log(end.known + end.partial + end.unknown + end.blocked) + end.logScale;
}

/** What the whole episode says, step by step (forward–backward). */
export interface SmoothedEpisode {
  /** per kept step: P(known when the step happened) (for an instructional step: before it) */
  known: number[];
  /** per kept step: P(neither known nor partly known: a right answer was a guess) */
  guessing: number[];
  /** P(known before the first step, folded ones included, by the prior: the prerequisites known) */
  knownAtStart: number;
  /** P(the prerequisites are known, and were when the episode began): the weight of this episode in the prior's estimate */
  prerequisitesKnown: number;
  /** expected practice / instruction opportunities taken while learnable (U or P), and expected moves at them (out of U, P→K) */
  learnOpportunities: number;
  learnings: number;
  teachOpportunities: number;
  teachings: number;
  /** expected moves out of U into P, and straight into K */
  partialEntries: number;
  directEntries: number;
}

/**
 * The risk at which an episode stops counting towards its objective's learning (and teaching) rate:
 * once the current rates, at the learner's speed, say that all but this share of learners would have
 * learned it, further opportunities are not counted. The time to learn is geometric (memoryless), so
 * learnings over opportunities counted within any such cap still estimates the rate without bias,
 * while a learner who cannot learn it (blocked, or on a curve the model lacks) adds at most the cap's
 * opportunities of failure instead of all of them. A stated level, not a fit.
 */
export const COUNTED_RISK = 0.05;

/** `risk`: COUNTED_RISK (0 counts every opportunity, as before the cap: for comparison in tests). */
export function smooth(e: ObjectiveEvidence, r: EpisodeRates, context?: EpisodeContext, risk = COUNTED_RISK): SmoothedEpisode {
  const pre = prefix(e, r, context);
  const learn = effectiveRate(r.objective.learn, r.speed);
  const teach = effectiveRate(r.objective.teach, r.speed);
  const phi = r.objective.gradual;
  const steps = e.steps;
  const m = steps.length;
  const way = passage(e.foldedAnswers, e.foldedTaught, learn, teach, phi);
  // Forward, normalized per step: a[j] = state masses (K, P, U, N) at step j before its emission;
  // counted[j]: step j was taken while the survival in U (from the episode's start) was above the risk.
  const a: [number, number, number, number][] = [];
  const em: [number, number, number][] = [];
  const rate: number[] = [];
  const counted: boolean[] = [];
  const z0 = pre.k + pre.p + pre.u + pre.n;
  const at: Masses = { k: pre.k / z0, p: pre.p / z0, u: pre.u / z0, n: pre.n / z0 };
  let survival = way.stay;
  for (const step of steps) {
    a.push([at.k, at.p, at.u, at.n]);
    const e3 = emission(step, e, r);
    em.push(e3);
    const t = stepOutcome(step) === TAUGHT ? teach : learn;
    rate.push(t);
    counted.push(survival > risk);
    survival *= 1 - t;
    advance(at, e3[0], e3[1], e3[2], t, phi);
  }
  // Backward: b = likelihood of the rest given the state after step j's transition (normalized),
  // starting from what the objectives above say of "known now".
  const b = backwardStart(context);
  const known: number[] = new Array(m);
  const guessing: number[] = new Array(m);
  let learnOpp = 0;
  let learned = 0;
  let teachOpp = 0;
  let taught = 0;
  let toPartial = 0;
  let direct = 0;
  for (let j = m - 1; j >= 0; j--) {
    const [ak, ap, au, an] = a[j]!;
    const [eK, eP, eU] = em[j]!;
    const t = rate[j]!;
    // Joint of (state at j, its move) and everything from j on.
    const jk = ak * eK * b.k;
    const jpStay = ap * eP * (1 - t) * b.p;
    const jpStep = ap * eP * t * b.k;
    const juStay = au * eU * (1 - t) * b.u;
    const juPartial = au * eU * t * phi * b.p;
    const juDirect = au * eU * t * (1 - phi) * b.k;
    const jn = an * eU * b.n;
    const z = jk + jpStay + jpStep + juStay + juPartial + juDirect + jn;
    known[j] = jk / z;
    guessing[j] = (juStay + juPartial + juDirect + jn) / z;
    if (counted[j]) {
      const opportunities = (jpStay + jpStep + juStay + juPartial + juDirect) / z;
      const moves = (jpStep + juPartial + juDirect) / z;
      toPartial += juPartial / z;
      direct += juDirect / z;
      if (stepOutcome(steps[j]!) === TAUGHT) {
        teachOpp += opportunities;
        taught += moves;
      } else {
        learnOpp += opportunities;
        learned += moves;
      }
    }
    retreat(b, eK, eP, eU, t, phi);
  }
  const { toK, toP, stayU, z, knownAtStart } = startPaths(r, context, pre, way, b);
  const folded = e.foldedAnswers + e.foldedTaught;
  if (folded) {
    // Within the cap: the folded opportunities before the survival reached the risk, and the share
    // of the learnings inside them that happened that early (one per-opportunity rate, as `passage`).
    const q = 1 - way.stay ** (1 / folded);
    const cap = way.stay > risk || q <= 0 ? folded : Math.min(folded, Math.ceil(Math.log(risk) / Math.log(1 - q)));
    const early = cap === folded ? 1 : (1 - (1 - q) ** cap) / (1 - way.stay);
    learnOpp += ((toK + toP + stayU) / z) * e.foldedAnswers * (cap / folded);
    // (a learner now in K passed through P with the share `gradual`: two moves then, else one)
    learned += (early * ((1 + phi) * toK + toP)) / z;
    toPartial += (early * (phi * toK + toP)) / z;
    direct += (early * ((1 - phi) * toK)) / z;
  }
  return {
    known,
    guessing,
    knownAtStart,
    prerequisitesKnown: (context?.fromBelow ?? 1) * (r.startKnown ?? 1),
    learnOpportunities: learnOpp,
    learnings: learned,
    teachOpportunities: teachOpp,
    teachings: taught,
    partialEntries: toPartial,
    directEntries: direct,
  };
}

/** The backward message after the last step: what the objectives above say of "known now". */
function backwardStart(context: EpisodeContext | undefined): Masses {
  const above = 1 / (1 + Math.exp(-(context?.fromAbove ?? 0)));
  return { k: above, p: 1 - above, u: 1 - above, n: 1 - above };
}

/** One step of the backward pass over a step (its emissions, then the moves at rate t), in place, normalized. */
function retreat(b: Masses, eK: number, eP: number, eU: number, t: number, phi: number): void {
  const nbk = eK * b.k;
  const nbp = eP * (t * b.k + (1 - t) * b.p);
  const nbu = eU * (t * phi * b.p + t * (1 - phi) * b.k + (1 - t) * b.u);
  const nbn = eU * b.n;
  const s = nbk + nbp + nbu + nbn;
  b.k = nbk / s;
  b.p = nbp / s;
  b.u = nbu / s;
  b.n = nbn / s;
}

/**
 * Before the first kept step: the prefix's paths (start K; from U: to K, to P, or still U; N), given
 * the backward message `b` there, their total, and P(known at the start by the prior).
 */
function startPaths(r: EpisodeRates, context: EpisodeContext | undefined, pre: Prefix, way: ReturnType<typeof passage>, b: Masses) {
  const [k0, u0, n0] = start(r, context);
  const below = context?.fromBelow ?? 1;
  const byPrior = (priorOf(r) * below) / Math.max(1e-12, k0);
  const mx = Math.max(pre.logK, pre.logU);
  const eK0 = Math.exp(pre.logK - mx);
  const eU0 = Math.exp(pre.logU - mx);
  const startK = k0 * eK0 * b.k;
  const toK = u0 * way.reached * eU0 * b.k;
  const toP = u0 * way.partial * eU0 * b.p;
  const stayU = u0 * way.stay * eU0 * b.u;
  const startN = n0 * eU0 * b.n;
  const z = startK + toK + toP + stayU + startN;
  return { toK, toP, stayU, z, knownAtStart: (startK / z) * byPrior };
}

/**
 * `smooth(e, r, context).knownAtStart`, the same number bit for bit, from the backward pass alone:
 * what a prerequisite's episode says of a learner's start (reading.ts) needs no per-step posterior.
 */
export function knownAtStart(e: ObjectiveEvidence, r: EpisodeRates, context?: EpisodeContext): number {
  const learn = effectiveRate(r.objective.learn, r.speed);
  const teach = effectiveRate(r.objective.teach, r.speed);
  const phi = r.objective.gradual;
  const b = backwardStart(context);
  const steps = e.steps;
  for (let j = steps.length - 1; j >= 0; j--) {
    const step = steps[j]!;
    const [eK, eP, eU] = emission(step, e, r);
    retreat(b, eK, eP, eU, stepOutcome(step) === TAUGHT ? teach : learn, phi);
  }
  return startPaths(r, context, prefix(e, r, context), passage(e.foldedAnswers, e.foldedTaught, learn, teach, phi), b).knownAtStart;
}
