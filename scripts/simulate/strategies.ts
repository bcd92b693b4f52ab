/**
 * The three strategies tutoring the same students (pure core, no I/O of its own):
 *   A: the service's policy through a TutorClient (in-process or over HTTP): do module_ids[0]; stop
 *      at ready, after STUCK_STOP stuck answers in a row, or at the cap.
 *   B: fixed curriculum: the goal's scope in topological order, assessment items until 3 correct in a
 *      row per objective (passes repeat until the targets are truly mastered or the cap).
 *   C: oracle knowing the true state: always an item (instruction when it teaches better) on an
 *      unknown objective the targets need whose prerequisites are known; stops at true mastery.
 */
import { Learner, type Student, type World } from "./world";

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

export interface TutorClient {
  view(): Promise<TutorView>;
  send(moduleId: string, correct: boolean | undefined, timeMs: number): Promise<void>;
  close?(): Promise<void>;
}

export type TutorFactory = (world: World, student: Student) => Promise<TutorClient>;

export interface StepRecord {
  /** assessing items given before this view */
  assessingBefore: number;
  workRemaining: number;
  stuck: boolean;
  /** the learner truly cannot progress on the focused objective (it or an unknown ancestor is the one they cannot learn) */
  trulyStuck: boolean;
  intent?: string;
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
  views?: StepRecord[];
  intents?: Record<string, number>;
  /** steps until true mastery by the true state of the item's objective (see stepKind) */
  breakdown?: Record<StepKind, number>;
}

/**
 * What a step did, by the true state of its item's objective before the answer:
 * learn = unknown and learnable now (the only kind the oracle spends); premature = unknown with an
 * unknown prerequisite (cannot be learned yet); out = the objective the student cannot learn;
 * knownBefore / learnedHere = already known (from the start / learned earlier in the run): diagnosis
 * and confirmation, split into targets and prerequisites.
 */
export type StepKind = "learn" | "premature" | "out" | "knownBeforePrereq" | "learnedHerePrereq" | "knownBeforeTarget" | "learnedHereTarget";

export function stepKind(world: World, learner: Learner, item: number): StepKind {
  const o = world.items[item]!.objective;
  if (learner.known[o]) {
    const target = world.targets.includes(o);
    if (learner.student.known[o]) return target ? "knownBeforeTarget" : "knownBeforePrereq";
    return target ? "learnedHereTarget" : "learnedHerePrereq";
  }
  if (o === learner.student.blocked) return "out";
  return learner.canLearn(o) ? "learn" : "premature";
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

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const STEP_MS = 45_000;

export async function runA(world: World, student: Student, client: TutorClient, cap: number): Promise<Run> {
  const learner = new Learner(world, student);
  const run: Run = {
    ...startRun("A", student, learner),
    views: [],
    intents: {},
    everStuck: false,
    breakdown: { learn: 0, premature: 0, out: 0, knownBeforePrereq: 0, learnedHerePrereq: 0, knownBeforeTarget: 0, learnedHereTarget: 0 },
  };
  if (learner.targetsMastered()) {
    run.masteredAt = 0;
    run.masteredAssessing = 0;
  }
  let stuckRun = 0;
  for (;;) {
    const v = await client.view();
    const focus = v.current !== undefined ? world.objectives.findIndex((o) => o.id === v.current) : -1;
    run.views!.push({
      assessingBefore: run.assessing,
      workRemaining: v.workRemaining,
      stuck: v.stuck,
      trulyStuck: focus >= 0 && learner.cannotReach(focus),
      intent: v.intent,
    });
    if (v.intent) run.intents![v.intent] = (run.intents![v.intent] ?? 0) + 1;
    if (v.ready) {
      run.end = "ready";
      run.readyAt = run.steps;
      run.readyAssessing = run.assessing;
      run.falseReady = !learner.targetsMastered();
      break;
    }
    if (v.stuck) {
      run.everStuck = true;
      stuckRun += 1;
    } else stuckRun = 0;
    if (stuckRun >= STUCK_STOP) {
      run.end = "stuck";
      break;
    }
    if (run.steps >= cap) break;
    const m = v.moduleIds[0];
    const i = m === undefined ? undefined : world.itemById.get(m);
    if (i === undefined) {
      run.end = "empty";
      break;
    }
    if (run.masteredAt === null) run.breakdown![stepKind(world, learner, i)] += 1;
    const correct = learner.work(i);
    run.steps += 1;
    if (correct !== undefined) run.assessing += 1;
    await client.send(m as string, correct, T0 + run.steps * STEP_MS);
    if (run.masteredAt === null && learner.targetsMastered()) {
      run.masteredAt = run.steps;
      run.masteredAssessing = run.assessing;
    }
  }
  await client.close?.();
  return run;
}

export function runB(world: World, student: Student, cap: number): Run {
  const learner = new Learner(world, student);
  const run = startRun("B", student, learner);
  if (learner.targetsMastered()) {
    run.masteredAt = 0;
    run.masteredAssessing = 0;
    run.end = "mastered";
    return run;
  }
  const curriculum = world.scope.filter((o) => world.objectives[o]!.items.length > 0);
  const cursor = new Map<number, number>();
  while (run.steps < cap) {
    for (const o of curriculum) {
      const items = world.objectives[o]!.items;
      let streak = 0;
      while (streak < 3 && run.steps < cap) {
        const c = cursor.get(o) ?? 0;
        cursor.set(o, c + 1);
        const correct = learner.work(items[c % items.length] as number);
        run.steps += 1;
        run.assessing += 1;
        streak = correct ? streak + 1 : 0;
        if (run.masteredAt === null && learner.targetsMastered()) {
          run.masteredAt = run.steps;
          run.masteredAssessing = run.assessing;
          run.end = "mastered";
          return run;
        }
      }
      if (run.steps >= cap) break;
    }
  }
  return run;
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
    const useInstruction = obj.instruction !== undefined && learner.learnProbability(o, true) > learner.learnProbability(o, false);
    const correct = learner.work(useInstruction ? (obj.instruction as number) : nextItem(obj.items, o, cursor));
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
    const useInstruction = obj.instruction !== undefined && (post[o] as number) < 0.5 && learner.learnProbability(o, true) > pl;
    const item = useInstruction ? (obj.instruction as number) : nextItem(obj.items, o, cursor);
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
    p += (1 - p) * learner.learnProbability(o, item === obj.instruction);
    post[o] = p;
    if (p >= confidence) believed[o] = true;
  }
  return run;
}
