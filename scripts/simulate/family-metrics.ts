/**
 * The figures of one world's class run (definitions in docs/recommendation.md, "Figures"), and the
 * family table: the median and the worst of each figure over many worlds.
 */
import type { StudentRun } from "./class-run";

export interface WorldFigures {
  students: number;
  blocked: number;
  /** learnable students brought to true mastery by A, B and C (the paired set) */
  paired: number;
  stepsA: number;
  stepsB: number;
  stepsC: number;
  /** A / B and A / C mean steps to true mastery over the paired set; C / B: what even the oracle saves */
  aOverB: number;
  aOverC: number;
  cOverB: number;
  /**
   * reference D (true parameters, strategies.ts) over the paired students it also brought to mastery:
   * A / D, D / C, and D / B (against A / B's target: where even D misses it, no engine that must
   * find each learner's start and its world's rates can be expected to meet it)
   */
  aOverD: number;
  dOverC: number;
  dOverB: number;
  /** learnable students A did not bring to true mastery (a false stuck stop or the cap) */
  missedA: number;
  /** share of A's steps (until each student stopped) on objectives the student had already mastered */
  redundant: number;
  /** share of A's steps (until each student stopped, blocked students included) on objectives not mastered yet while one of their prerequisites was not */
  ahead: number;
  /** mean answers between true mastery and A's ready (learnable students with a true ready) */
  readyLag: number;
  falseReady: number;
  readies: number;
  falseReadyRate: number;
  /** A: students ever flagged stuck who cannot learn an objective they need / ever flagged; / students who cannot */
  stuckPrecision: number;
  stuckRecall: number;
  stuckFlagged: number;
  /** B (partner-sequenced): of the students who truly mastered the goal by the end of their practice, the share reported complete then */
  completeShare: number;
  completeOf: number;
  /** B: the same share read again once the class finished and the engine's rates caught up (class-run.ts `settle`) */
  completeShareSettled: number;
  /** B: students ever reported complete while not truly mastered / students ever reported complete */
  falseCompleteRate: number;
  /** B: students ever reported struggling who cannot learn an objective they need / ever reported struggling */
  strugglingPrecision: number;
  strugglingRecall: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);

export function figures(a: StudentRun[], b: StudentRun[], c: StudentRun[], d: StudentRun[] = []): WorldFigures {
  const byStudent = (runs: StudentRun[]) => new Map(runs.map((r) => [r.student, r]));
  const A = byStudent(a);
  const B = byStudent(b);
  const C = byStudent(c);
  const learnable = a.filter((r) => !r.blocked).map((r) => r.student);
  const paired = learnable.filter((s) => A.get(s)?.masteredAt != null && B.get(s)?.masteredAt != null && C.get(s)?.masteredAt != null);
  const steps = (m: Map<number, StudentRun>) => mean(paired.map((s) => m.get(s)?.masteredAt as number));
  const [sa, sb, sc] = [steps(A), steps(B), steps(C)];
  const D = byStudent(d);
  const pairedD = paired.filter((s) => D.get(s)?.masteredAt != null);
  const stepsOf = (m: Map<number, StudentRun>) => mean(pairedD.map((s) => m.get(s)?.masteredAt as number));
  const readies = a.filter((r) => r.end === "ready");
  const falseReady = readies.filter((r) => r.falseReady).length;
  const trueReadies = readies.filter((r) => !r.falseReady && !r.blocked && r.masteredAt !== null);
  const blocked = a.filter((r) => r.blocked).length;
  const flagged = a.filter((r) => r.everStuck);
  const masteredB = b.filter((r) => r.end === "mastered" && r.steps > 0);
  const everComplete = b.filter((r) => r.everComplete);
  const struggling = b.filter((r) => r.everStuck);
  const blockedB = b.filter((r) => r.blocked).length;
  /** A's steps of one kind over all of A's steps (every student, until each stopped) */
  const shareOfSteps = (kind: "redundant" | "ahead") =>
    ratio(
      a.reduce((s, r) => s + r[kind], 0),
      a.reduce((s, r) => s + r.steps, 0),
    );
  return {
    students: a.length,
    blocked,
    paired: paired.length,
    stepsA: sa,
    stepsB: sb,
    stepsC: sc,
    aOverB: sa / sb,
    aOverC: sa / sc,
    cOverB: sc / sb,
    aOverD: stepsOf(A) / stepsOf(D),
    dOverC: stepsOf(D) / stepsOf(C),
    dOverB: stepsOf(D) / stepsOf(B),
    missedA: learnable.filter((s) => A.get(s)?.masteredAt == null).length,
    redundant: shareOfSteps("redundant"),
    ahead: shareOfSteps("ahead"),
    readyLag: mean(trueReadies.map((r) => (r.readyAt as number) - (r.masteredAt as number))),
    falseReady,
    readies: readies.length,
    falseReadyRate: readies.length ? falseReady / readies.length : 0,
    stuckPrecision: ratio(flagged.filter((r) => r.blocked).length, flagged.length),
    stuckRecall: ratio(flagged.filter((r) => r.blocked).length, blocked),
    stuckFlagged: flagged.length,
    completeShare: ratio(masteredB.filter((r) => r.completeAtEnd).length, masteredB.length),
    completeOf: masteredB.length,
    completeShareSettled: ratio(masteredB.filter((r) => r.completeAfterSettle).length, masteredB.length),
    falseCompleteRate: everComplete.length ? everComplete.filter((r) => r.falseComplete).length / everComplete.length : 0,
    strugglingPrecision: ratio(struggling.filter((r) => r.blocked).length, struggling.length),
    strugglingRecall: ratio(struggling.filter((r) => r.blocked).length, blockedB),
  };
}

/** Each figure's target and whether larger is better (the family table's columns). */
export const TARGETS: { key: keyof WorldFigures; label: string; better: "low" | "high"; target: number; fmt: (x: number) => string }[] = [
  { key: "aOverB", label: "A / B steps", better: "low", target: 0.7, fmt: (x) => x.toFixed(2) },
  { key: "aOverC", label: "A / C steps", better: "low", target: 2.0, fmt: (x) => x.toFixed(2) },
  { key: "cOverB", label: "C / B steps (oracle)", better: "low", target: Number.NaN, fmt: (x) => x.toFixed(2) },
  { key: "aOverD", label: "A / D steps (D: true parameters)", better: "low", target: Number.NaN, fmt: (x) => x.toFixed(2) },
  { key: "dOverC", label: "D / C steps (observing, true parameters)", better: "low", target: Number.NaN, fmt: (x) => x.toFixed(2) },
  { key: "dOverB", label: "D / B steps (the reference against A / B's target)", better: "low", target: 0.7, fmt: (x) => x.toFixed(2) },
  { key: "redundant", label: "redundant share of A's steps", better: "low", target: 0.35, fmt: (x) => `${(100 * x).toFixed(0)}%` },
  { key: "ahead", label: "A's steps ahead of an unmastered prerequisite", better: "low", target: Number.NaN, fmt: (x) => `${(100 * x).toFixed(0)}%` },
  { key: "readyLag", label: "ready: answers after true mastery", better: "low", target: 10, fmt: (x) => x.toFixed(1) },
  { key: "falseReadyRate", label: "false-ready", better: "low", target: 0.05, fmt: (x) => `${(100 * x).toFixed(1)}%` },
  { key: "stuckPrecision", label: "stuck precision", better: "high", target: 0.8, fmt: (x) => x.toFixed(2) },
  { key: "stuckRecall", label: "stuck recall", better: "high", target: 0.8, fmt: (x) => x.toFixed(2) },
  { key: "completeShare", label: "B: mastered and reported complete", better: "high", target: 0.7, fmt: (x) => `${(100 * x).toFixed(0)}%` },
  {
    key: "completeShareSettled",
    label: "B: mastered, complete once the rates caught up",
    better: "high",
    target: Number.NaN,
    fmt: (x) => `${(100 * x).toFixed(0)}%`,
  },
  { key: "falseCompleteRate", label: "B: false-complete", better: "low", target: 0.05, fmt: (x) => `${(100 * x).toFixed(1)}%` },
  { key: "strugglingPrecision", label: "B: struggling precision", better: "high", target: 0.8, fmt: (x) => x.toFixed(2) },
  { key: "strugglingRecall", label: "B: struggling recall", better: "high", target: Number.NaN, fmt: (x) => x.toFixed(2) },
];

function median(xs: number[]): number {
  const v = xs.filter(Number.isFinite).sort((x, y) => x - y);
  if (!v.length) return Number.NaN;
  const m = v.length >> 1;
  return v.length % 2 ? (v[m] as number) : ((v[m - 1] as number) + (v[m] as number)) / 2;
}

/** The family table: per figure, the median and the worst world, the target, and on how many worlds it is met. */
export function familyTable(rows: WorldFigures[]): string {
  const lines = ["| figure | median | worst | target | met on |", "| --- | --- | --- | --- | --- |"];
  for (const t of TARGETS) {
    const xs = rows.map((r) => r[t.key]).filter(Number.isFinite);
    const worst = xs.length ? (t.better === "low" ? Math.max(...xs) : Math.min(...xs)) : Number.NaN;
    const met = Number.isFinite(t.target) ? xs.filter((x) => (t.better === "low" ? x <= t.target : x >= t.target)).length : Number.NaN;
    const target = Number.isFinite(t.target) ? `${t.better === "low" ? "≤" : "≥"} ${t.fmt(t.target)}` : "–";
    lines.push(
      `| ${t.label} | ${Number.isFinite(median(xs)) ? t.fmt(median(xs)) : "–"} | ${Number.isFinite(worst) ? t.fmt(worst) : "–"} | ${target} | ${Number.isFinite(met) ? `${met} of ${xs.length}` : "–"} |`,
    );
  }
  return lines.join("\n");
}

/** One line per world (the family run's detail). */
export function worldRow(name: string, f: WorldFigures): string {
  const p = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "–");
  const pc = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : "–");
  return `| ${name} | ${f.paired}/${f.students - f.blocked}/${f.blocked} | ${p(f.aOverB)} | ${p(f.aOverC)} | ${p(f.cOverB)} | ${p(f.aOverD)} | ${pc(f.redundant)} | ${pc(f.ahead)} | ${p(f.readyLag)} | ${f.falseReady}/${f.readies} | ${p(f.stuckPrecision)} | ${p(f.stuckRecall)} | ${pc(f.completeShare)} (${f.completeOf}) | ${pc(f.completeShareSettled)} | ${pc(f.falseCompleteRate)} | ${p(f.strugglingPrecision)} | ${p(f.strugglingRecall)} |`;
}

export const WORLD_HEADER =
  "| world | paired/learnable/blocked | A/B | A/C | C/B | A/D | redundant | ahead | ready lag | false-ready | stuck P | stuck R | B complete | B complete, settled | B false-complete | B struggling P | B struggling R |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";
