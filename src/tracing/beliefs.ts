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
  /** what the rest of the scope (k's own word left out) says of each of k's prerequisites: P(known); computed when asked (the stuck flag's reading) */
  prereqKnown(k: number): number[];
}

const sigmoid = (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const logOdds = (a: number, b: number) => Math.log(Math.max(a, 1e-300)) - Math.log(Math.max(b, 1e-300));

export function scopeBeliefs(structure: Structure, factors: readonly LocalFactor[]): ScopeBeliefs {
  const n = factors.length;
  const { prereqs } = structure;
  // Messages as log-odds: down[k] from k's factor to k; up[k][i] from k's factor to its i-th prerequisite.
  const down = new Array<number>(n).fill(0);
  const up: number[][] = prereqs.map((ps) => ps.map(() => 0));
  // upInto[p] = sum of the up messages p receives from its dependents' factors.
  const upInto = new Array<number>(n).fill(0);
  const slot: Map<number, number>[] = prereqs.map((ps) => new Map(ps.map((p, i) => [p, i])));
  const upFrom = (d: number, p: number) => up[d]![slot[d]!.get(p)!]!;
  /** message from prerequisite p into dependent d's factor, as P(p known) */
  const into = (p: number, d: number) => sigmoid(down[p]! + upInto[p]! - upFrom(d, p));

  for (let pass = 0; pass < PASSES; pass++) {
    let change = 0;
    for (let k = 0; k < n; k++) {
      const f = factors[k] as LocalFactor;
      let all = 1;
      for (const p of prereqs[k] as readonly number[]) all *= into(p, k);
      const m1 = f.known * all + f.leakKnown * (1 - all);
      const m0 = (f.unknown + f.blocked) * all + f.leakUnknown * (1 - all);
      const next = logOdds(m1, m0);
      change = Math.max(change, Math.abs(next - down[k]!));
      down[k] = next;
    }
    for (let k = n - 1; k >= 0; k--) {
      const ps = prereqs[k] as readonly number[];
      if (!ps.length) continue;
      const f = factors[k] as LocalFactor;
      const mk = sigmoid(upInto[k]!);
      const a1 = f.known * mk + (f.unknown + f.blocked) * (1 - mk);
      const a0 = f.leakKnown * mk + f.leakUnknown * (1 - mk);
      const ins = ps.map((p) => into(p, k));
      for (const [i, p] of ps.entries()) {
        let others = 1;
        for (const [j, q] of ins.entries()) if (j !== i) others *= q;
        const next = logOdds(others * a1 + (1 - others) * a0, a0);
        const prev = up[k]![i]!;
        change = Math.max(change, Math.abs(next - prev));
        up[k]![i] = next;
        upInto[p] = upInto[p]! + next - prev;
      }
    }
    if (change < TOLERANCE) break;
  }

  const known: number[] = [];
  const parentsKnown: number[] = [];
  const learnable: number[] = [];
  const blocked: number[] = [];
  const fromBelow: number[] = [];
  for (let k = 0; k < n; k++) {
    let all = 1;
    for (const p of prereqs[k]!) all *= into(p, k);
    const m = objectiveMasses(factors[k]!, all, upInto[k]!);
    known.push(m.known);
    parentsKnown.push(m.parentsKnown);
    learnable.push(m.learnable);
    blocked.push(m.blocked);
    fromBelow.push(all);
  }
  const prereqKnown = (k: number) => prereqs[k]!.map((p) => into(p, k));
  return { known, parentsKnown, learnable, blocked, fromBelow, fromAbove: upInto, prereqKnown };
}

/**
 * One objective's beliefs from its local factor and what the rest of the scope says of it: P(all its
 * prerequisites known) from below, and the log-odds of "known now" from above.
 */
export function objectiveMasses(
  f: LocalFactor,
  fromBelow: number,
  fromAbove: number,
): { known: number; parentsKnown: number; learnable: number; blocked: number } {
  const all = fromBelow;
  const above = sigmoid(fromAbove);
  // Joint masses: prerequisites known and the objective known / learnable / blocked; a prerequisite missing and the objective known (leak) / not.
  const knownMass = all * f.known * above;
  const learnableMass = all * f.unknown * (1 - above);
  const blockedMass = all * f.blocked * (1 - above);
  const leakKnown = (1 - all) * f.leakKnown * above;
  const leakUnknown = (1 - all) * f.leakUnknown * (1 - above);
  const z = knownMass + learnableMass + blockedMass + leakKnown + leakUnknown;
  return {
    known: (knownMass + leakKnown) / z,
    parentsKnown: (knownMass + learnableMass + blockedMass) / z,
    learnable: learnableMass / z,
    blocked: blockedMass / z,
  };
}
