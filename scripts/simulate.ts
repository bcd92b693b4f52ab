// `npm run --silent simulate -- --base URL ...`: the learner simulator against a RUNNING service, over
// HTTP only (docs/recommendation.md, "Simulator"). Strategy A is the service's own recommendations;
// B and C run in the simulated world on the same students; the table is the in-process runner's.
import { existsSync, readFileSync } from "node:fs";
import { isPathwiseError, PathwiseNetworkError } from "../client";
import { type Credentials, httpFactory, provisionWorld, simulatorClient, TransportError } from "./simulate/http";
import { compileWorld, inProcessFactory } from "./simulate/in-process";
import type { Summary } from "./simulate/metrics";
import { runWorld } from "./simulate/run";
import { tableHead, tableRow } from "./simulate/table";
import { VARIANTS } from "./simulate/variants";
import { generateWorld, LARGE, SMALL, type WorldParams } from "./simulate/world";

const DEMO_FILE = ".wrangler/demo-partner.json";

const USAGE = `Usage: npm run --silent simulate -- [options]

Drives a running Pathwise service over its public API with simulated students and prints, per seed
and world size, the steps to true mastery of A (the service's recommendations), B (fixed curriculum)
and C (oracle), A/C, A/B, false-ready rate, stuck precision and recall, and work_remaining error.

  --base URL             the service (default http://localhost:8787)
  --seeds 1,2,3,4,5      world seeds (default 1,2,3,4,5)
  --sizes small,large    world sizes (default small,large)
  --students N           students per world (default 100; the first N of the in-process runner's 200)
  --concurrency K        students tutored in parallel (default 8)
  --behavior practice    the goal's adaptive_behavior (practice, introduce, review)
  --variant base         world variant (${Object.keys(VARIANTS).join(", ")})
  --client-id ID --client-secret SECRET --admin-scope EXTERNAL_USER_ID
                         partner credentials (default: the demo partner of \`npm start\`, ${DEMO_FILE})
  --compare              also run strategy A in process on the same students (one more row per world)
  --json                 print the summaries as JSON after the table

Rate limits: the service's spec limits (15 requests a minute per token on a registration's
recommendation and event paths) are respected: the driver waits for the window (RateLimit-*
headers) and after every 429 (Retry-After). At those limits a student advances ~7 steps a minute,
so a full run takes hours; start the service with raised limits for a run in minutes:

  RATE_LIMIT_MULTIPLIER=1000 npm start          (or PORT=8790 RATE_LIMIT_MULTIPLIER=off npm start)

Exits 1 on a transport or service error (an unexpected status, a connection failure, a
recommendation that disagrees with status and progress).`;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

function credentials(): Credentials {
  const id = arg("client-id", "");
  const secret = arg("client-secret", "");
  const scope = arg("admin-scope", "");
  if (id || secret || scope) {
    if (!id || !secret || !scope) throw new Error("--client-id, --client-secret and --admin-scope go together");
    return { client_id: id, client_secret: secret, admin_external_user_id: scope };
  }
  if (!existsSync(DEMO_FILE))
    throw new Error(`no credentials: pass --client-id/--client-secret/--admin-scope, or run \`npm start\` here first (it writes ${DEMO_FILE})`);
  const demo = JSON.parse(readFileSync(DEMO_FILE, "utf8")) as { credentials: Credentials };
  return demo.credentials;
}

async function main(): Promise<void> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(USAGE);
    return;
  }
  const base = arg("base", "http://localhost:8787").replace(/\/+$/, "");
  const sizes = arg("sizes", "small,large").split(",");
  const seeds = arg("seeds", "1,2,3,4,5").split(",").map(Number);
  const students = Number(arg("students", "100"));
  const concurrency = Number(arg("concurrency", "8"));
  const behavior = arg("behavior", "practice") as "practice" | "introduce" | "review";
  const variant = arg("variant", "base");
  const tweak = VARIANTS[variant];
  if (!tweak) throw new Error(`unknown variant ${variant}; known: ${Object.keys(VARIANTS).join(", ")}`);
  if (!["practice", "introduce", "review"].includes(behavior)) throw new Error(`unknown behavior ${behavior}`);
  if (seeds.some((s) => !Number.isInteger(s)) || !(students >= 1) || !(concurrency >= 1))
    throw new Error(`bad --seeds, --students or --concurrency\n\n${USAGE}`);
  for (const size of sizes) if (size !== "small" && size !== "large") throw new Error(`unknown size ${size} (small, large)`);

  try {
    const res = await fetch(`${base}/v0/openapi.json`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`status ${res.status}`);
  } catch (error) {
    throw new TransportError(`no Pathwise service at ${base} (${error instanceof Error ? error.message : error}); start one with \`npm start\``);
  }
  const { api, stats } = simulatorClient(base, credentials());
  await api.accessToken();
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const compare = process.argv.includes("--compare");
  const results: { size: string; seed: number; runner: string; summary: Summary }[] = [];
  console.log(tableHead());
  const started = performance.now();
  for (const size of sizes) {
    for (const seed of seeds) {
      const params: WorldParams = { ...(size === "large" ? LARGE : SMALL), ...tweak, students };
      const world = generateWorld(params, seed);
      const t0 = performance.now();
      const provisioned = await provisionWorld(api, world, runId, behavior);
      const r = await runWorld(world, httpFactory(api, provisioned, runId), { concurrency });
      const label = `${size} (${params.objectives})`;
      const variantLabel = `${variant}${behavior === "practice" ? "" : `, ${behavior}`}`;
      console.log(tableRow(label, `${variantLabel}, HTTP`, seed, world.scope.length, r.summary));
      results.push({ size, seed, runner: "http", summary: r.summary });
      console.error(`  ${label} seed ${seed}: ${((performance.now() - t0) / 1000).toFixed(0)} s, graph ${provisioned.graphLabel}`);
      if (compare) {
        const local = await runWorld(world, inProcessFactory(compileWorld(world, behavior)));
        console.log(tableRow(label, `${variantLabel}, in-process`, seed, world.scope.length, local.summary));
        results.push({ size, seed, runner: "in-process", summary: local.summary });
      }
    }
  }
  const { requests, refused } = stats;
  console.error(`${requests} requests in ${((performance.now() - started) / 1000).toFixed(0)} s; ${refused} answered 429 and waited out`);
  if (refused > 0) console.error("(the service applies rate limits: RATE_LIMIT_MULTIPLIER=1000 npm start runs much faster)");
  if (process.argv.includes("--json")) console.log(JSON.stringify(results));
}

main().catch((error: unknown) => {
  const transport = error instanceof TransportError || isPathwiseError(error) || error instanceof PathwiseNetworkError;
  console.error(transport ? `transport error: ${(error as Error).message}` : error instanceof Error ? error.message : error);
  process.exit(1);
});
