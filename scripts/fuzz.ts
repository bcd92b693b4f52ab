// `npm run fuzz -- --runs N [--seed S]`: the OpenAPI fuzz suite (test/fuzz) with N valid and N
// mutated requests per operation, inside workerd like `npm test` (which runs it with 6 and 10 and a
// fixed seed). Without --seed a random seed is used and printed, so a failure can be replayed.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { wranglerEnv } from "./lib/wrangler";

const { values } = parseArgs({ options: { runs: { type: "string", default: "200" }, seed: { type: "string" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive whole number, not ${values.runs}`);
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
if (!/^\d+$/.test(seed)) throw new Error(`--seed must be a whole number, not ${seed}`);
console.log(`fuzz: ${runs} valid and ${runs} mutated requests per operation, seed ${seed} (replay: npm run fuzz -- --runs ${runs} --seed ${seed})`);

const result = spawnSync("npx", ["--no-install", "vitest", "run", "--project", "workerd", "test/fuzz"], {
  stdio: "inherit",
  env: { ...wranglerEnv, FUZZ_RUNS: String(runs), FUZZ_SEED: seed },
});
process.exit(result.status ?? 1);
