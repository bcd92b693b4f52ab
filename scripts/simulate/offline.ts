/**
 * In-process simulator run (tuning): strategy A through the real pure model + policy, B and C on the
 * same students. Usage:
 *   npx tsx scripts/simulate/offline.ts [--sizes small,large] [--seeds 1,2,3,4,5] [--students 200]
 *     [--behavior practice] [--variant base|hard|easy|...] [--json]
 */
import { POLICY } from "../../src/policy";
import { compileWorld, inProcessFactory } from "./in-process";
import type { Summary } from "./metrics";
import { runWorld, stepCap } from "./run";
import { runD } from "./strategies";
import { tableHead, tableRow } from "./table";
import { VARIANTS } from "./variants";
import { generateWorld, LARGE, SMALL, type WorldParams } from "./world";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? (process.argv[i + 1] as string) : fallback;
}

const sizes = arg("sizes", "small,large").split(",");
const seeds = arg("seeds", "1,2,3,4,5").split(",").map(Number);
const students = Number(arg("students", "200"));
const behavior = arg("behavior", "practice") as "practice" | "introduce" | "review";
const variantNames = arg("variant", "base").split(",");
const json = process.argv.includes("--json");
// Tuning: --set key=value[,key=value] overrides POLICY constants for this run.
for (const kv of arg("set", "").split(",").filter(Boolean)) {
  const [k, v] = kv.split("=");
  if (!k || !(k in POLICY)) throw new Error(`unknown POLICY key ${k}`);
  (POLICY as unknown as Record<string, number>)[k] = Number(v);
}

const results: { size: string; variant: string; seed: number; summary: Summary }[] = [];
console.log(tableHead());
for (const variant of variantNames) {
  const tweak = VARIANTS[variant];
  if (!tweak) throw new Error(`unknown variant ${variant}; known: ${Object.keys(VARIANTS).join(", ")}`);
  for (const size of sizes) {
    const base: WorldParams = size === "large" ? LARGE : SMALL;
    for (const seed of seeds) {
      const params: WorldParams = { ...base, ...tweak, students };
      const world = generateWorld(params, seed);
      const t0 = performance.now();
      const r = await runWorld(world, inProcessFactory(compileWorld(world, behavior)));
      const s = r.summary;
      results.push({ size, variant, seed, summary: s });
      console.log(tableRow(`${size} (${params.objectives})`, variant, seed, world.scope.length, s));
      if (process.argv.includes("--bounds")) {
        // Reference D (strategies.ts): knows the initial state and the true parameters, recovers from a
        // false advance after one wasted step; best confidence; over the learnable students B and C bring to mastery.
        const cap = stepCap(world);
        const learnableIdx = world.students.flatMap((st, i) => (st.blocked < 0 ? [i] : []));
        const learnable = learnableIdx.map((i) => world.students[i] as (typeof world.students)[number]);
        // B and C as runWorld already ran them (deterministic per student)
        const b = learnableIdx.map((i) => r.b[i]?.masteredAt ?? null);
        const c = learnableIdx.map((i) => r.c[i]?.masteredAt ?? null);
        const keep = learnable.map((_, i) => b[i] != null && c[i] != null);
        const mean = (xs: (number | null)[]) => {
          const v = xs.filter((_, i) => keep[i]) as number[];
          return v.reduce((x, y) => x + y, 0) / v.length;
        };
        let best = { conf: 0, d: Infinity };
        for (const conf of [0.5, 0.6, 0.7, 0.8, 0.9]) {
          const d = mean(learnable.map((st) => runD(world, st, cap, conf, 1).masteredAt));
          if (d < best.d) best = { conf, d };
        }
        console.error(`  D ${best.d.toFixed(1)} (confidence ${best.conf}): D/C ${(best.d / mean(c)).toFixed(2)}, D/B ${(best.d / mean(b)).toFixed(2)}`);
      }
      if (process.argv.includes("--breakdown"))
        console.error(
          `  A steps by kind: ${Object.entries(s.breakdownA)
            .map(([k, v]) => `${k} ${v.toFixed(1)}`)
            .join(", ")}`,
        );
      if (process.argv.includes("--verbose")) console.error(`  ${((performance.now() - t0) / 1000).toFixed(1)} s`, JSON.stringify(s));
    }
  }
}
if (json) console.log(JSON.stringify(results));
