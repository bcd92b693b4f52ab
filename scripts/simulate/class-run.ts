/**
 * A class of students working at once, as a partner's class does: every student takes one step per
 * round (a recommendation and an answer for A; the partner's next item for B), and the engine sees the
 * rounds go by (`ClassSession.tick`), so what it learns from the class's answers (population
 * parameters) reaches later decisions with the lag the service has. A is the engine's recommendations;
 * B is the partner's own fixed sequence (the same students), judged only by the engine's status and
 * progress; C the oracle. Pure of I/O: the engine is in process (in-process.ts) or over HTTP (http.ts).
 */
import { Learner } from "./learners";
import { runC, runD, STUCK_STOP, type TutorView } from "./strategies";
import type { Student, World } from "./world";

/** What the engine says of one student's goal after their latest answer (status and progress). */
export interface StatusView {
  status: string;
  progress: number;
  workRemaining: number;
}

/** One registration of a class. */
export interface StudentSession {
  /** recommendation + status and progress (strategy A) */
  view(): Promise<TutorView>;
  /** status and progress only (a learner who never asks for a recommendation) */
  status(): Promise<StatusView>;
  send(moduleId: string, correct: boolean | undefined, timeMs: number): Promise<void>;
}

export interface ClassSession {
  student(s: Student): Promise<StudentSession>;
  /** a round went by (every student stepped once): the engine may refresh what it learned from the class */
  tick(round: number): Promise<void>;
  /** the class has finished: wait until what the engine learned from it reaches its decisions (over HTTP, the Freshness bound) */
  settle(): Promise<void>;
  close?(): Promise<void>;
}

export type ClassFactory = (world: World, strategy: "A" | "B") => Promise<ClassSession>;

/** Per-student outcome of a class run. */
export interface StudentRun {
  student: number;
  blocked: boolean;
  steps: number;
  /** steps until the targets were truly mastered, null if never */
  masteredAt: number | null;
  /** A: steps on objectives the student had already mastered at the time */
  redundant: number;
  /** A: steps on an objective not mastered yet while one of its prerequisites was not */
  ahead: number;
  end: "ready" | "stuck" | "cap" | "empty" | "mastered";
  readyAt?: number;
  falseReady?: boolean;
  /** A: ever flagged stuck; B: ever reported struggling */
  everStuck: boolean;
  /** B: reported complete at the end of the student's practice */
  completeAtEnd?: boolean;
  /** B: reported complete when read again after the whole class finished and the engine settled (a partner's dashboard the next day) */
  completeAfterSettle?: boolean;
  /** B: reported complete at some point while the targets were not truly mastered */
  falseComplete?: boolean;
  everComplete?: boolean;
}

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
export const STEP_MS = 45_000;

/** Cap on steps per student: generous against the scope size (B needs ≥ 3 per objective; slow learners on deep scopes need many more). */
export function stepCap(world: World): number {
  return Math.max(500, 40 * world.scope.length);
}

interface Active {
  student: Student;
  learner: Learner;
  session: StudentSession;
  run: StudentRun;
  stuckRun: number;
  /** B's place in its curriculum */
  curriculum?: { pos: number; streak: number; cursor: Map<number, number>; here: number; targetsClean: boolean };
}

function newRun(s: Student, learner: Learner): StudentRun {
  return {
    student: s.index,
    blocked: learner.blocked,
    steps: 0,
    masteredAt: learner.targetsMastered() ? 0 : null,
    redundant: 0,
    ahead: 0,
    end: "cap",
    everStuck: false,
  };
}

/** When the partner-sequenced practice (strategy B) ends: runClassB. */
export type BStop = "mastered" | "observed";

/** Strategy A for a whole class: do module_ids[0]; stop at ready, after STUCK_STOP stuck responses in a row, or at the cap. */
export async function runClassA(world: World, engine: ClassSession): Promise<StudentRun[]> {
  const cap = stepCap(world);
  const active: Active[] = [];
  for (const s of world.students) {
    const learner = new Learner(world, s);
    active.push({ student: s, learner, session: await engine.student(s), run: newRun(s, learner), stuckRun: 0 });
  }
  const done: StudentRun[] = [];
  for (let round = 0; active.length; round++) {
    for (let i = 0; i < active.length; ) {
      const a = active[i] as Active;
      if (await stepA(world, a, cap, round)) {
        done.push(a.run);
        active.splice(i, 1);
      } else i++;
    }
    await engine.tick(round);
  }
  return done.sort((x, y) => x.student - y.student);
}

/** One step of A; true when the student is finished. */
async function stepA(world: World, a: Active, cap: number, round: number): Promise<boolean> {
  const { run, learner } = a;
  const v = await a.session.view();
  if (v.ready) {
    run.end = "ready";
    run.readyAt = run.steps;
    run.falseReady = !learner.targetsMastered();
    return true;
  }
  if (v.stuck) {
    run.everStuck = true;
    a.stuckRun += 1;
  } else a.stuckRun = 0;
  if (a.stuckRun >= STUCK_STOP) {
    run.end = "stuck";
    return true;
  }
  if (run.steps >= cap) return true;
  const m = v.moduleIds[0];
  const i = m === undefined ? undefined : world.itemById.get(m);
  if (i === undefined) {
    run.end = "empty";
    return true;
  }
  const o = world.items[i]!.objective;
  if (learner.known[o]) run.redundant += 1;
  else if (!learner.prerequisitesMastered(o)) run.ahead += 1;
  const correct = learner.work(i);
  run.steps += 1;
  await a.session.send(m as string, correct, T0 + round * STEP_MS);
  if (run.masteredAt === null && learner.targetsMastered()) run.masteredAt = run.steps;
  return false;
}

/**
 * Strategy B for a whole class, sequenced by the partner (never asking for a recommendation): the
 * scope's objectives in topological order, assessment items in turn until 3 correct in a row per
 * objective; passes repeat until the partner's stop (below) ends the student's practice, or the cap.
 * After every answer the engine's status and progress is read, as a partner's
 * dashboard would. Steps to true mastery count to the answer after which the targets were mastered.
 *
 * `stop`: when the partner's practice ends. "observed" (the default): after a pass whose every
 * target objective was answered right at its first three answers of the pass, a check a partner can
 * make on what it observed, so the stop says nothing the answers do not. "mastered" (the family's
 * stop until 2026-11-26, kept for comparison): after a pass that leaves the targets truly mastered.
 * No partner can see that: the simulator's oracle decides it, so a learner keeps practising exactly
 * while not mastered, a longer record is itself evidence of no mastery that the engine cannot see
 * (its reading and its estimates take the record as what any learner would have answered: the
 * targets' slip ran to its bound, docs/recommendation.md), and learners who master leave at once.
 */
export async function runClassB(world: World, engine: ClassSession, stop: BStop = "observed"): Promise<StudentRun[]> {
  const cap = stepCap(world);
  const curriculum = world.scope.filter((o) => world.objectives[o]!.items.length > 0);
  const active: Active[] = [];
  const done: StudentRun[] = [];
  for (const s of world.students) {
    const learner = new Learner(world, s);
    const a: Active = {
      student: s,
      learner,
      session: await engine.student(s),
      run: newRun(s, learner),
      stuckRun: 0,
      curriculum: { pos: 0, streak: 0, cursor: new Map(), here: 0, targetsClean: true },
    };
    if (a.run.masteredAt === 0) {
      a.run.end = "mastered";
      done.push(a.run);
    } else active.push(a);
  }
  const finished: Active[] = [];
  for (let round = 0; active.length; round++) {
    for (let i = 0; i < active.length; ) {
      const a = active[i] as Active;
      if (await stepB(world, curriculum, a, cap, round, stop)) {
        done.push(a.run);
        finished.push(a);
        active.splice(i, 1);
      } else i++;
    }
    await engine.tick(round);
  }
  // The same learners' status read once more, with the rates the whole class taught the engine.
  await engine.settle();
  for (const a of finished) {
    const st = await a.session.status();
    a.run.completeAfterSettle = st.status === "complete";
    if (st.status === "complete" && !a.learner.targetsMastered()) a.run.falseComplete = true;
  }
  return done.sort((x, y) => x.student - y.student);
}

async function stepB(world: World, curriculum: number[], a: Active, cap: number, round: number, stop: BStop): Promise<boolean> {
  const { run, learner } = a;
  const c = a.curriculum as NonNullable<Active["curriculum"]>;
  const o = curriculum[c.pos % curriculum.length] as number;
  const items = world.objectives[o]!.items;
  const n = c.cursor.get(o) ?? 0;
  c.cursor.set(o, n + 1);
  const item = items[n % items.length] as number;
  const correct = learner.work(item);
  run.steps += 1;
  c.streak = correct ? c.streak + 1 : 0;
  c.here += 1;
  let passDone = false;
  let targetsClean = false;
  if (c.streak >= 3) {
    if (world.targets.includes(o) && c.here > 3) c.targetsClean = false;
    c.pos += 1;
    c.streak = 0;
    c.here = 0;
    passDone = c.pos % curriculum.length === 0;
    if (passDone) {
      targetsClean = c.targetsClean;
      c.targetsClean = true;
    }
  }
  await a.session.send(world.items[item]!.id, correct, T0 + round * STEP_MS);
  const mastered = learner.targetsMastered();
  if (mastered && run.masteredAt === null) run.masteredAt = run.steps;
  const st = await a.session.status();
  if (st.status === "struggling") run.everStuck = true;
  if (st.status === "complete") {
    run.everComplete = true;
    if (!mastered) run.falseComplete = true;
  }
  // The partner's practice ends after a pass of its sequence (`stop`: one that leaves the targets truly mastered, or one whose targets were right at once), or at the cap.
  if ((stop === "mastered" ? passDone && mastered : targetsClean) || run.steps >= cap) {
    run.end = mastered ? "mastered" : "cap"; // ("cap": ended without mastery, the observed stop included)
    run.completeAtEnd = st.status === "complete";
    return true;
  }
  return false;
}

/** A reference strategy's run (C, D) as a class run: its steps to mastery, nothing the engine judged. */
function referenceRun(s: Student, r: { steps: number; masteredAt: number | null }): StudentRun {
  return { student: s.index, blocked: s.blocked >= 0, steps: r.steps, masteredAt: r.masteredAt, redundant: 0, ahead: 0, end: "mastered", everStuck: false };
}

/** The oracle for every student (no engine involved). */
export function runClassC(world: World): StudentRun[] {
  const cap = stepCap(world);
  return world.students.map((s) => referenceRun(s, runC(world, s, cap)));
}

/**
 * Reference D for every student (no engine): knows each student's start, the true item parameters and
 * learning rates, not when learning happens; moves on at posterior 0.8, recovers from a false move
 * after one wasted step (strategies.ts). What observing costs even with the world's true parameters.
 */
export function runClassD(world: World): StudentRun[] {
  const cap = stepCap(world);
  return world.students.map((s) => referenceRun(s, runD(world, s, cap, 0.8, 1)));
}
