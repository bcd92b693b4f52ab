/**
 * The simulator's true learners: what a student knows, how they answer and how they learn. Two
 * learner models that differ in kind, chosen per world (WorldParams.kind):
 *
 * - discrete (knowledge tracing's own): an objective is known or not; an item on a known objective is
 *   answered right unless the student slips, on an unknown one only by a guess; each opportunity on
 *   an unknown objective whose prerequisites are known teaches it with the student's learning
 *   probability (instruction × instructionBoost), after the answer.
 * - continuous: a skill z per objective that grows gradually with practice; an item is answered right
 *   with probability guess + (1 − guess − slip) · σ(z − difficulty). A student starts at z ∈ [3, 5]
 *   on objectives they know and z ∈ [−4, −2] on the others; each opportunity adds
 *   5 × (that learning probability) × U(0.5, 1.5) × gate to z, so an objective takes about as many
 *   opportunities as in the discrete world, but the curve is gradual (several half-right answers on
 *   the way); gate = the product over the prerequisites of clamp(z_p / MASTERED_Z, 0, 1): a
 *   half-learned prerequisite slows learning what builds on it. Mastered = z ≥ MASTERED_Z: even the
 *   hardest item is then answered right with probability ≥ guess + (1 − guess − slip) · σ(1.5)
 *   (82% of the way: the goal's default min_predicted_mastery, 0.8).
 *
 * In both, a blocked student never learns the blocked objective. In the discrete model nothing is
 * learned while a prerequisite is not mastered. No forgetting (out of a goal's time scale).
 */
import { sigmoid } from "../../src/model/math";
import { makeRng, type Student, type World } from "./world";

export const MASTERED_Z = 2;

export class Learner {
  /** mastered now, per objective */
  readonly known: boolean[];
  /** the continuous model's skills (unused in discrete worlds) */
  private readonly z: number[];
  private readonly rng: ReturnType<typeof makeRng>;
  constructor(
    readonly world: World,
    readonly student: Student,
  ) {
    this.known = [...student.known];
    this.rng = makeRng(student.seed);
    // A stream of its own, so the discrete worlds' draws stay as they were.
    const init = makeRng(student.seed ^ 0x5bd1e995);
    this.z = student.known.map((k) => (k ? init.uniform([3, 5]) : init.uniform([-4, -2])));
  }

  get continuous(): boolean {
    return this.world.params.kind === "continuous";
  }

  canLearn(o: number): boolean {
    return o !== this.student.blocked && this.prerequisitesMastered(o);
  }

  /** Every prerequisite of o mastered (in the continuous model, a half-learned one slows learning o, by its skill / MASTERED_Z, and one at skill 0 or below stops it). */
  prerequisitesMastered(o: number): boolean {
    return this.world.objectives[o]!.prereqs.every((p) => this.known[p]);
  }

  /** Probability that one opportunity teaches the (discrete) objective; in continuous worlds, the expected skill gain / 5.5. */
  learnProbability(o: number, instruction: boolean): number {
    const base = this.world.objectives[o]!.learn * this.student.learnMultiplier * (instruction ? this.world.params.instructionBoost : 1);
    return Math.min(0.95, Math.max(0.01, base));
  }

  /** Probability of a right answer on assessment item i now. */
  pCorrect(i: number): number {
    const it = this.world.items[i]!;
    if (!this.continuous) return this.known[it.objective] ? 1 - it.slip : it.guess;
    return it.guess + (1 - it.guess - it.slip) * sigmoid((this.z[it.objective] as number) - it.difficulty);
  }

  /** Works on item `i`: returns the graded outcome (undefined for instruction), then maybe learns. */
  work(i: number): boolean | undefined {
    const it = this.world.items[i]!;
    const o = it.objective;
    let outcome: boolean | undefined;
    if (it.kind === "assessment") outcome = this.rng.next() < this.pCorrect(i);
    const u = this.rng.next();
    const instruction = it.kind === "instructional";
    if (this.continuous) {
      if (o === this.student.blocked) return outcome;
      let gate = 1;
      for (const p of this.world.objectives[o]!.prereqs) gate *= Math.min(1, Math.max(0, (this.z[p] as number) / MASTERED_Z));
      this.z[o] = (this.z[o] as number) + 5 * this.learnProbability(o, instruction) * (0.5 + u) * gate;
      if ((this.z[o] as number) >= MASTERED_Z) this.known[o] = true;
    } else if (this.canLearn(o) && !this.known[o] && u < this.learnProbability(o, instruction)) this.known[o] = true;
    return outcome;
  }

  targetsMastered(): boolean {
    return this.world.targets.every((t) => this.known[t]);
  }

  /** The student can never master the targets (the blocked objective is needed and unknown). */
  get blocked(): boolean {
    return this.student.blocked >= 0;
  }

  /** The objective is permanently out of reach: it, or an unknown ancestor, is the blocked one. */
  cannotReach(o: number): boolean {
    const b = this.student.blocked;
    if (b < 0) return false;
    const stack = [o];
    const seen = new Set<number>();
    while (stack.length) {
      const x = stack.pop() as number;
      if (seen.has(x) || this.known[x]) continue;
      seen.add(x);
      if (x === b) return true;
      stack.push(...this.world.objectives[x]!.prereqs);
    }
    return false;
  }
}
