/**
 * The engine on the world family, in process: `npx tsx scripts/simulate/family-run.ts [--worlds 30]
 * [--first 1] [--students 200] [--no-learning] [--b-stop observed|mastered]` prints a row per world and the family table (the
 * median and the worst of each figure, and on how many worlds its target is met).
 */
import { type BStop, runClassA, runClassB, runClassC, runClassD } from "./class-run";
import { describe, familyParams } from "./family";
import { familyTable, figures, WORLD_HEADER, type WorldFigures, worldRow } from "./family-metrics";
import { inProcessClass } from "./in-process";
import { generateWorld } from "./world";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? (process.argv[i + 1] as string) : fallback;
}
const worlds = Number(arg("worlds", "30"));
const first = Number(arg("first", "1"));
const students = Number(arg("students", "200"));
const bStop = arg("b-stop", "observed") as BStop;
if (bStop !== "mastered" && bStop !== "observed") throw new Error("--b-stop: mastered or observed");
const only = arg("only", "").split(",").filter(Boolean).map(Number);
const engine = inProcessClass({ learn: !process.argv.includes("--no-learning") });
const rows: WorldFigures[] = [];
console.log(WORLD_HEADER);
const seeds = only.length ? only : Array.from({ length: worlds }, (_, i) => first + i);
for (const seed of seeds) {
  const world = generateWorld(familyParams(seed, students), seed, `family ${seed}`);
  const t0 = performance.now();
  const a = await runClassA(world, await engine(world, "A"));
  const b = await runClassB(world, await engine(world, "B"), bStop);
  const f = figures(a, b, runClassC(world), runClassD(world));
  rows.push(f);
  console.log(worldRow(`${seed} ${describe(world.params)} sc${world.scope.length}`, f));
  if (process.argv.includes("--verbose")) console.error(`  ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
console.log();
console.log(familyTable(rows));
