// `npm run bench [-- NAME ...]`: runs every benchmark in bench/ (or the named ones), one after another.
// Benchmarks print their own tables; they measure, they do not pass or fail.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const all = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .map((f) => f.replace(/\.ts$/, ""))
  .sort();
// `npm run bench -- NAME ... --flag value ...`: the names come first; everything from the first flag
// on is passed to each benchmark (e.g. `npm run bench -- throughput --quick`).
const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith("-"));
const wanted = firstFlag < 0 ? args : args.slice(0, firstFlag);
const passed = firstFlag < 0 ? [] : args.slice(firstFlag);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : all) {
  console.log(`\n## ${name}\n`);
  const result = spawnSync(process.execPath, ["--import", "tsx", `bench/${name}.ts`, ...passed], {
    stdio: "inherit",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0) {
    failed++;
    console.error(`${name} failed (exit ${result.status})`);
  }
}
process.exit(failed ? 1 : 0);
