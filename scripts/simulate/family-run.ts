/**
 * The engine on the world family, in process: `npx tsx scripts/simulate/family-run.ts [--worlds 30]
 * [--first 1] [--students 200] [--no-learning] [--b-stop observed|mastered] [--refresh-rounds 1]` prints a row per world and
 * the family table (the median and the worst of each figure, and on how many worlds its target is met).
 * `--refresh-rounds N`: the class's rates re-estimated every N rounds instead of every round (over HTTP
 * a round of 40 learners takes a few seconds, while the service brings its rates up to date within
 * 60 s: the class then runs 10-20 rounds on each copy of its rates, which a real class, at 45 s or
 * more per answer, does not).
 * `--true-rates [--estimated guess,slip,prior,learn,gradual,spread]`: the class decides on the world's
 * true rates (true-rates.ts), but for the families named, which come from the engine's estimate as
 * usual; discrete worlds only (a continuous world is skipped): what the estimates cost.
 */
import { type BStop, runClassA, runClassB, runClassC, runClassD } from "./class-run";
import { describe, familyParams } from "./family";
import { familyTable, figures, WORLD_HEADER, type WorldFigures, worldRow } from "./family-metrics";
import { inProcessClass } from "./in-process";
import { RATE_FAMILIES, type RateFamily } from "./true-rates";
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
const refreshRounds = Number(arg("refresh-rounds", "1"));
if (!(Number.isInteger(refreshRounds) && refreshRounds >= 1)) throw new Error("--refresh-rounds: a whole number of rounds, 1 or more");
const onTruth = process.argv.includes("--true-rates");
const estimated = arg("estimated", "").split(",").filter(Boolean) as RateFamily[];
for (const f of estimated) if (!RATE_FAMILIES.includes(f)) throw new Error(`--estimated: ${RATE_FAMILIES.join(", ")}`);
if (estimated.length && !onTruth) throw new Error("--estimated goes with --true-rates");
const engine = inProcessClass({ learn: !process.argv.includes("--no-learning"), refreshRounds, trueRatesBut: onTruth ? estimated : undefined });
const rows: WorldFigures[] = [];
console.log(WORLD_HEADER);
const seeds = only.length ? only : Array.from({ length: worlds }, (_, i) => first + i);
for (const seed of seeds) {
  const world = generateWorld(familyParams(seed, students), seed, `family ${seed}`);
  if (onTruth && world.params.kind !== "discrete") continue;
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
