/**
 * What the learner knows now across a goal's scope, from every objective's evidence at once.
 *
 * The scope is a Bayesian network over "known now" (one binary variable per objective): an objective
 * can only be known when all its prerequisites are (learning needs them, and nothing is forgotten);
 * its own evidence weighs each case (episode.ts): `parentsKnown` its states when the prerequisites
 * are known (known, unknown but learnable, blocked), `parentsUnknown` when one is not (then it could
 * never be learned: every answer was a guess, but for a small leak LEAK for what the graph does not
 * say). Beliefs travel both ways: a right answer on a dependent is evidence that its prerequisites are
 * known; failures on an objective whose prerequisites are believed known make them doubtful again.
 *
 * Inference is belief propagation (sum-product) on that network: exact where the scope is a polytree,
 * a close approximation where prerequisites share ancestors; a few passes in topological order, each
 * O(prerequisite edges). Prerequisites outside the scope are taken as known (the goal's remediation
 * depth says the learner is expected to have them).
 */

import { ancestry } from "./ancestry";

const PASSES = 8;
const TOLERANCE = 1e-6;

/** An objective's evidence under each case (any common scale). */
export interface LocalFactor {
  /** prerequisites known: the objective known / unknown and learnable / blocked */
  known: number;
  unknown: number;
  blocked: number;
  /** a prerequisite unknown: the objective known (leak) / unknown */
  leakKnown: number;
  leakUnknown: number;
  /**
   * For an objective without evidence: P(its prerequisites were known when the learner began on
   * them) that `known` includes (reading.ts `startKnown`, each worked ancestor once). As an ancestor
   * of another objective it is left out (that objective's own factor carries it once); multiplied in
   * per ancestor, the same doubtful answer would be counted once per objective above it.
   */
  startKnown?: number;
}

export interface Structure {
  /** in-scope prerequisites per objective (local indices, objectives in topological order) */
  prereqs: readonly (readonly number[])[];
}

export interface ScopeBeliefs {
  /** P(known now) */
  known: number[];
  /** P(all in-scope prerequisites known) */
  parentsKnown: number[];
  /** P(prerequisites known, the objective unknown and learnable): where practice teaches */
  learnable: number[];
  /** P(prerequisites known, the objective blocked): where more practice will not help */
  blocked: number[];
  /** what the rest of the scope says of each objective: P(all prerequisites known) from below, and the log-odds of "known now" from above */
  fromBelow: number[];
  fromAbove: number[];
}

const sigmoid = (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const logOdds = (a: number, b: number) => Math.log(Math.max(a, 1e-300)) - Math.log(Math.max(b, 1e-300));

export function scopeBeliefs(structure: Structure, factors: readonly LocalFactor[]): ScopeBeliefs {
  const n = factors.length;
  const { prereqs } = structure;
  const { base, rest } = ancestry(prereqs);
  // Messages as log-odds: up[k][i] from k's factor to its i-th prerequisite; upInto[p] the sum of those p receives.
  const up: number[][] = prereqs.map((ps) => ps.map(() => 0));
  const upInto = new Array<number>(n).fill(0);
  /**
   * P(k known | its prerequisites known) by its own evidence; with `less`, also by what its dependents
   * say, less `less` (log-odds: the message of the dependent asking)
   */
  const given = (k: number, less?: number) => {
    const f = factors[k] as LocalFactor;
    const above = less === undefined ? 0.5 : sigmoid(upInto[k]! - less);
    const known = f.startKnown ? Math.min(1, f.known / f.startKnown) : f.known;
    const yes = known * above;
    const no = Math.max(0, f.known + f.unknown + f.blocked - known) * (1 - above);
    return yes + no > 0 ? yes / (yes + no) : 0;
  };
  // P(every in-scope ancestor of k known), as a log: under the network's AND gates, the product over
  // k's distinct ancestors a of P(a known | a's prerequisites known), each counted once (the product
  // of the prerequisites' marginals would count a shared ancestor's doubt once per path to k).
  const logGiven = new Float64Array(n);
  const logAncestors = new Float64Array(n);
  /** P(all of k's prerequisites known) as k's factor sees it (what k's own messages said of its prerequisites left out) */
  const all = new Float64Array(n);
  const below = () => {
    for (let k = 0; k < n; k++) logGiven[k] = Math.log(Math.max(given(k), 1e-300));
    for (let k = 0; k < n; k++) {
      const ps = prereqs[k] as readonly number[];
      if (!ps.length) {
        all[k] = 1;
        continue;
      }
      const b = ps[base[k]!]!;
      let log = logAncestors[b]! + logGiven[b]!;
      for (const a of rest[k]![base[k]!]!) log += logGiven[a]!;
      logAncestors[k] = log;
      for (const [i, p] of ps.entries()) log += Math.log(Math.max(given(p, up[k]![i]!), 1e-300)) - logGiven[p]!;
      all[k] = Math.exp(log);
    }
  };

  for (let pass = 0; pass < PASSES; pass++) {
    below();
    let change = 0;
    for (let k = n - 1; k >= 0; k--) {
      const ps = prereqs[k] as readonly number[];
      if (!ps.length) continue;
      const f = factors[k] as LocalFactor;
      const mk = sigmoid(upInto[k]!);
      const a1 = f.known * mk + (f.unknown + f.blocked) * (1 - mk);
      const a0 = f.leakKnown * mk + f.leakUnknown * (1 - mk);
      const direct = new Map(ps.map((p, i) => [p, i]));
      for (const [i, p] of ps.entries()) {
        // p known means its ancestors are: what else k needs is the rest of k's ancestors.
        let others = 1;
        for (const a of rest[k]![i]!) {
          const j = direct.get(a);
          others *= j === undefined ? given(a) : given(a, up[k]![j]!);
        }
        const next = logOdds(others * a1 + (1 - others) * a0, a0);
        const prev = up[k]![i]!;
        change = Math.max(change, Math.abs(next - prev));
        up[k]![i] = next;
        upInto[p] = upInto[p]! + next - prev;
      }
    }
    if (change < TOLERANCE) break;
  }
  below();

  const known: number[] = [];
  const parentsKnown: number[] = [];
  const learnable: number[] = [];
  const blocked: number[] = [];
  const fromBelow: number[] = [];
  for (let k = 0; k < n; k++) {
    const f = factors[k]!;
    const allKnown = all[k]!;
    const above = sigmoid(upInto[k]!);
    // Joint masses: prerequisites known and the objective known / learnable / blocked; a prerequisite missing and the objective known (leak) / not.
    const knownMass = allKnown * f.known * above;
    const learnableMass = allKnown * f.unknown * (1 - above);
    const blockedMass = allKnown * f.blocked * (1 - above);
    const leakKnown = (1 - allKnown) * f.leakKnown * above;
    const leakUnknown = (1 - allKnown) * f.leakUnknown * (1 - above);
    const z = knownMass + learnableMass + blockedMass + leakKnown + leakUnknown;
    known.push((knownMass + leakKnown) / z);
    parentsKnown.push((knownMass + learnableMass + blockedMass) / z);
    learnable.push(learnableMass / z);
    blocked.push(blockedMass / z);
    fromBelow.push(allKnown);
  }
  return { known, parentsKnown, learnable, blocked, fromBelow, fromAbove: upInto };
}
