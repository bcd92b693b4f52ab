/**
 * Metrics of a simulated world (definitions in docs/recommendation.md, "Simulator").
 */
import type { Run, StepKind } from "./strategies";

export interface Summary {
  students: number;
  learnable: number;
  blocked: number;
  /** learnable students that reached true mastery under all three strategies (the paired set) */
  paired: number;
  /** mean steps to true mastery over the paired set */
  stepsA: number;
  stepsB: number;
  stepsC: number;
  /** learnable students who did not reach true mastery under the strategy */
  missedA: number;
  missedB: number;
  missedC: number;
  /** mean steps A gives until ready (learnable students that got a true ready) */
  readyStepsA: number;
  readyCount: number;
  falseReady: number;
  falseReadyRate: number;
  /** students A stopped as stuck (30 in a row) vs students who cannot learn an objective they need */
  stuckStopped: number;
  stuckTruePositive: number;
  stuckPrecision: number;
  stuckRecall: number;
  /** students ever flagged stuck: precision against the same truth */
  everStuckPrecision: number;
  /** recommendation responses flagged stuck whose focused objective is truly out of reach */
  stepStuckPrecision: number;
  /** mean |work_remaining − min(30, assessing items A actually gave until ready)| over views with work_remaining ≥ 0 */
  wrMae: number;
  wrMaeLearnable: number;
  /** same, against the assessing items until true mastery (learnable students who reached it) */
  wrMaeToMastery: number;
  wrCoverage: number;
  /** A's mean steps to true mastery by kind (paired set) */
  breakdownA: Partial<Record<StepKind, number>>;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

export function summarize(a: Run[], b: Run[], c: Run[]): Summary {
  const learnable = a.filter((r) => !r.blocked).map((r) => r.student);
  const byStudent = (runs: Run[]) => new Map(runs.map((r) => [r.student, r]));
  const A = byStudent(a),
    B = byStudent(b),
    C = byStudent(c);
  const paired = learnable.filter((s) => A.get(s)?.masteredAt != null && B.get(s)?.masteredAt != null && C.get(s)?.masteredAt != null);
  const steps = (m: Map<number, Run>) => mean(paired.map((s) => m.get(s)!.masteredAt as number));
  const missed = (m: Map<number, Run>) => learnable.filter((s) => m.get(s)?.masteredAt == null).length;
  const readies = a.filter((r) => r.end === "ready");
  const falseReady = readies.filter((r) => r.falseReady).length;
  const stopped = a.filter((r) => r.end === "stuck");
  const tp = stopped.filter((r) => r.blocked).length;
  const blocked = a.filter((r) => r.blocked).length;
  const ever = a.filter((r) => r.everStuck);
  const views = a.flatMap((r) => r.views ?? []);
  const flagged = views.filter((v) => v.stuck);
  const wrErr = (runs: Run[], toMastery: boolean) => {
    const errs: number[] = [];
    let covered = 0,
      total = 0;
    for (const r of runs) {
      let end: number | null;
      if (toMastery) end = r.masteredAssessing;
      else end = r.end === "ready" ? (r.readyAssessing as number) : null;
      if (toMastery && end === null) continue;
      for (const v of r.views ?? []) {
        total += 1;
        if (v.workRemaining < 0) continue;
        covered += 1;
        const actual = end === null ? 30 : Math.min(30, Math.max(0, end - v.assessingBefore));
        errs.push(Math.abs(v.workRemaining - actual));
      }
    }
    return { mae: mean(errs), coverage: total ? covered / total : NaN };
  };
  const all = wrErr(a, false);
  return {
    students: a.length,
    learnable: learnable.length,
    blocked,
    paired: paired.length,
    stepsA: steps(A),
    stepsB: steps(B),
    stepsC: steps(C),
    missedA: missed(A),
    missedB: missed(B),
    missedC: missed(C),
    readyStepsA: mean(readies.filter((r) => !r.falseReady && !r.blocked).map((r) => r.readyAt as number)),
    readyCount: readies.length,
    falseReady,
    falseReadyRate: readies.length ? falseReady / readies.length : 0,
    stuckStopped: stopped.length,
    stuckTruePositive: tp,
    stuckPrecision: stopped.length ? tp / stopped.length : NaN,
    stuckRecall: blocked ? tp / blocked : NaN,
    everStuckPrecision: ever.length ? ever.filter((r) => r.blocked).length / ever.length : NaN,
    stepStuckPrecision: flagged.length ? flagged.filter((v) => v.trulyStuck).length / flagged.length : NaN,
    wrMae: all.mae,
    wrMaeLearnable: wrErr(
      a.filter((r) => !r.blocked),
      false,
    ).mae,
    wrMaeToMastery: wrErr(
      a.filter((r) => !r.blocked),
      true,
    ).mae,
    wrCoverage: all.coverage,
    breakdownA: breakdown(paired.map((s) => A.get(s) as Run)),
  };
}

function breakdown(runs: Run[]): Partial<Record<StepKind, number>> {
  const out: Partial<Record<StepKind, number>> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.breakdown ?? {})) out[k as StepKind] = (out[k as StepKind] ?? 0) + v / runs.length;
  return out;
}
