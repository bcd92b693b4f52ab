/**
 * The reference strategies on one student (A, the engine, and B, the partner's curriculum, run a
 * whole class at once: class-run.ts):
 *   C: oracle knowing the true state: always an item (instruction when it teaches better) on an
 *      unknown objective the targets need whose prerequisites are known; stops at true mastery.
 *   D: a reference knowing the true parameters and the start, not the learning moments (runD).
 */
import { Learner } from "./learners";
import type { Student, World } from "./world";

export const STUCK_STOP = 30;

/** What strategy A sees of the service for one student and goal. */
export interface TutorView {
  moduleIds: string[];
  ready: boolean;
  stuck: boolean;
  /** status-and-progress work_remaining (-1 = cannot say) */
  workRemaining: number;
  status: string;
  progress: number;
  /** justification of module_ids[0] */
  current?: string;
  intent?: string;
  remedial?: boolean;
}

export interface Run {
  strategy: "A" | "B" | "C";
  student: number;
  blocked: boolean;
  steps: number;
  assessing: number;
  /** steps (all items) until the targets were truly mastered, null if never */
  masteredAt: number | null;
  masteredAssessing: number | null;
  end: "ready" | "stuck" | "cap" | "empty" | "mastered" | "no-frontier";
  readyAt?: number;
  readyAssessing?: number;
  falseReady?: boolean;
  everStuck?: boolean;
}

/** The objective's next assessment item, in turn (`cursor` counts each objective's items given). */
function nextItem(items: readonly number[], objective: number, cursor: Map<number, number>): number {
  const c = cursor.get(objective) ?? 0;
  cursor.set(objective, c + 1);
  return items[c % items.length] as number;
}

/** A run before its first step. */
function startRun(strategy: Run["strategy"], student: Student, learner: Learner): Run {
  return { strategy, student: student.index, blocked: learner.blocked, steps: 0, assessing: 0, masteredAt: null, masteredAssessing: null, end: "cap" };
}

export function runC(world: World, student: Student, cap: number): Run {
  const learner = new Learner(world, student);
  const run = startRun("C", student, learner);
  const cursor = new Map<number, number>();
  while (!learner.targetsMastered()) {
    if (run.steps >= cap) return run;
    // Needed unknown objectives that can be learned now; any order learns the same set, take the deepest-first order of the scope.
    const frontier = [...world.needed].filter((o) => !learner.known[o] && learner.canLearn(o)).sort((a, b) => a - b);
    const o = frontier[0];
    if (o === undefined) {
      run.end = "no-frontier";
      return run;
    }
    const obj = world.objectives[o]!;
    const useInstruction = obj.instruction.length > 0 && learner.learnProbability(o, true) > learner.learnProbability(o, false);
    const correct = learner.work(useInstruction ? nextItem(obj.instruction, o + world.objectives.length, cursor) : nextItem(obj.items, o, cursor));
    run.steps += 1;
    if (correct !== undefined) run.assessing += 1;
  }
  run.masteredAt = run.steps;
  run.masteredAssessing = run.assessing;
  run.end = "mastered";
  return run;
}

/**
 * D (a reference for what observing costs, not a tutor): knows the student's initial knowledge, the
 * blocked objective, every item's guess and slip and the student's learning probabilities, but not
 * when learning happens. Works like C on the frontier, with instruction while the objective is likely
 * unknown, and moves on once its exact posterior (knowledge tracing with the true parameters) says
 * the objective is known with probability `confidence`. A prerequisite wrongly believed known is
 * noticed after `recoveryCost` wasted steps (optimistic: no tutor learns of it that fast).
 */
export function runD(world: World, student: Student, cap: number, confidence: number, recoveryCost: number): Run {
  const learner = new Learner(world, student);
  const run = startRun("C", student, learner);
  // believed known: initially known objectives, then those whose posterior reached the confidence
  const believed = [...student.known];
  const post: number[] = world.objectives.map((_, o) => (student.known[o] ? 1 : 0));
  const cursor = new Map<number, number>();
  while (run.steps < cap) {
    if (learner.targetsMastered()) {
      run.masteredAt = run.steps;
      run.masteredAssessing = run.assessing;
      run.end = "mastered";
      return run;
    }
    const frontier = [...world.needed]
      .filter((o) => !believed[o] && o !== student.blocked && world.objectives[o]!.prereqs.every((p) => believed[p]))
      .sort((a, b) => a - b);
    const o = frontier[0];
    if (o !== undefined) {
      const wrong = world.objectives[o]!.prereqs.filter((p) => !learner.known[p]);
      if (wrong.length) {
        for (const p of wrong) believed[p] = false;
        run.steps += recoveryCost;
        continue;
      }
    }
    if (o === undefined) {
      const wrong = [...world.needed].filter((p) => believed[p] && !learner.known[p]);
      if (!wrong.length) {
        run.end = "no-frontier";
        return run;
      }
      for (const p of wrong) believed[p] = false;
      run.steps += recoveryCost;
      continue;
    }
    const obj = world.objectives[o]!;
    const pl = learner.learnProbability(o, false);
    const useInstruction = obj.instruction.length > 0 && (post[o] as number) < 0.5 && learner.learnProbability(o, true) > pl;
    const item = useInstruction ? nextItem(obj.instruction, o + world.objectives.length, cursor) : nextItem(obj.items, o, cursor);
    const correct = learner.work(item);
    run.steps += 1;
    let p = post[o] as number;
    if (correct !== undefined) {
      run.assessing += 1;
      const it = world.items[item]!;
      const lk = correct ? 1 - it.slip : it.slip;
      const lu = correct ? it.guess : 1 - it.guess;
      p = (p * lk) / (p * lk + (1 - p) * lu);
    }
    p += (1 - p) * learner.learnProbability(o, obj.instruction.includes(item));
    post[o] = p;
    if (p >= confidence) believed[o] = true;
  }
  return run;
}
