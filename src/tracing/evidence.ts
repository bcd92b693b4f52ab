/**
 * What a registration's events say about one objective, kept as plain data that no parameter
 * touched: the steps on it (which item, right, wrong, or an instructional opportunity), oldest first.
 * Every belief is computed from it with the population's current rates (episode.ts), so a better
 * estimate of the rates re-reads all the evidence, and replaying the event log rebuilds exactly the
 * same record whatever the rates were when the events arrived.
 *
 * Bounded: the last KEEP steps are kept one by one; older ones are folded into counts (a learner with
 * that many steps on one objective is either long past learning it or stuck on it, and the counts
 * keep what both readings need).
 */

/** Steps kept one by one per objective. */
export const KEEP = 24;

/** A step's outcome: an answer right or wrong, or an instructional opportunity (no answer). */
export const RIGHT = 1;
export const WRONG = 0;
export const TAUGHT = 2;

export interface ObjectiveEvidence {
  /** items seen on the objective (module labels), indexed by `steps` */
  items: string[];
  /** kept steps, oldest first: item index × 4 + outcome */
  steps: number[];
  /** folded older steps: graded answers, right answers, instructional opportunities */
  foldedAnswers: number;
  foldedRight: number;
  foldedTaught: number;
  /** all graded answers and right answers (kept and folded) */
  answers: number;
  right: number;
  /** work share for max_work_on_goal: each event adds 1/(objectives of its item) */
  work: number;
  /** event sequence number of the latest step */
  last: number;
}

export function newEvidence(): ObjectiveEvidence {
  return { items: [], steps: [], foldedAnswers: 0, foldedRight: 0, foldedTaught: 0, answers: 0, right: 0, work: 0, last: 0 };
}

/** The learner worked on the objective: a step kept or an answer folded (an episode to read). */
export const worked = (e: ObjectiveEvidence | undefined): e is ObjectiveEvidence => !!e && (e.steps.length > 0 || e.foldedAnswers > 0);

export function stepItem(e: ObjectiveEvidence, step: number): string {
  return e.items[step >> 2] as string;
}

export const stepOutcome = (step: number): number => step & 3;

/** Appends a step (a graded answer or an instructional opportunity on `item`). */
export function addStep(e: ObjectiveEvidence, item: string, outcome: number, seq: number, share: number): void {
  let i = e.items.indexOf(item);
  if (i < 0) {
    i = e.items.length;
    e.items.push(item);
  }
  e.steps.push(i * 4 + outcome);
  if (outcome !== TAUGHT) {
    e.answers += 1;
    if (outcome === RIGHT) e.right += 1;
  }
  e.work += share;
  e.last = seq;
  if (e.steps.length > KEEP) fold(e);
}

function fold(e: ObjectiveEvidence): void {
  const old = e.steps.shift()!;
  const o = stepOutcome(old);
  if (o === TAUGHT) e.foldedTaught += 1;
  else {
    e.foldedAnswers += 1;
    if (o === RIGHT) e.foldedRight += 1;
  }
  // Forget items no kept step names any more (renumbering the kept steps).
  const used = new Set(e.steps.map((s) => s >> 2));
  if (used.size === e.items.length) return;
  const remap = new Map<number, number>();
  const items: string[] = [];
  for (const [i, label] of e.items.entries())
    if (used.has(i)) {
      remap.set(i, items.length);
      items.push(label);
    }
  e.items = items;
  e.steps = e.steps.map((s) => remap.get(s >> 2)! * 4 + (s & 3));
}

/** Graded answers on the item among the kept steps (to spread practice over an objective's items). */
export function attemptsOn(e: ObjectiveEvidence | undefined, item: string): number {
  if (!e) return 0;
  const i = e.items.indexOf(item);
  if (i < 0) return 0;
  let n = 0;
  for (const s of e.steps) if (s >> 2 === i && stepOutcome(s) !== TAUGHT) n++;
  return n;
}

/** Outcome of the latest step (RIGHT, WRONG, TAUGHT), -1 when there is none. */
export function lastOutcome(e: ObjectiveEvidence | undefined): number {
  return e?.steps.length ? stepOutcome(e.steps[e.steps.length - 1]!) : -1;
}
