/**
 * The simulator's result table (markdown), the same for the in-process runner (offline.ts) and the
 * HTTP driver (scripts/simulate.ts). Column definitions: docs/recommendation.md, "Metrics".
 */
import type { Summary } from "./metrics";

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "–");

export const TABLE_HEADER =
  "| world | variant | seed | scope | learnable/blocked | steps A | B | C | A/C | A/B | A missed | ready steps A | false-ready | stuck P | stuck R | step-stuck P | wr MAE | wr MAE learnable |";

export function tableHead(): string {
  return `${TABLE_HEADER}\n${TABLE_HEADER.replace(/[^|]+/g, "---")}`;
}

export function tableRow(world: string, variant: string, seed: number, scope: number, s: Summary): string {
  return `| ${world} | ${variant} | ${seed} | ${scope} | ${s.learnable}/${s.blocked} | ${f(s.stepsA)} | ${f(s.stepsB)} | ${f(s.stepsC)} | ${f(s.stepsA / s.stepsC, 2)} | ${f(s.stepsA / s.stepsB, 2)} | ${s.missedA} | ${f(s.readyStepsA)} | ${s.falseReady}/${s.readyCount} (${f(100 * s.falseReadyRate)}%) | ${f(s.stuckPrecision, 2)} | ${f(s.stuckRecall, 2)} | ${f(s.stepStuckPrecision, 2)} | ${f(s.wrMae, 2)} | ${f(s.wrMaeLearnable, 2)} |`;
}
