// `npm run --silent simulate -- --base URL ...`: the learner simulator against a RUNNING service, over
// HTTP only (docs/recommendation.md, "Simulator"): classes of family worlds, A the service's own
// recommendations, B the partner's sequence judged by the service's status, C the oracle; the table
// is the in-process family runner's (scripts/simulate/family-run.ts).
import { existsSync, readFileSync } from "node:fs";
import { isPathwiseError, PathwiseNetworkError } from "../client";
import { runClassA, runClassB, runClassC, runClassD } from "./simulate/class-run";
import { describe, familyParams } from "./simulate/family";
import { familyTable, figures, WORLD_HEADER, type WorldFigures, worldRow } from "./simulate/family-metrics";
import { type Credentials, httpClass, simulatorClient, TransportError } from "./simulate/http";
import { inProcessClass } from "./simulate/in-process";
import { generateWorld } from "./simulate/world";

const DEMO_FILE = ".wrangler/demo-partner.json";

const USAGE = `Usage: npm run --silent simulate -- [options]

Drives a running Pathwise service over its public API with simulated classes of the world family
(scripts/simulate/family.ts; docs/recommendation.md "World family") and prints, per world, the
figures of the in-process family table: A (the service's recommendations) against B (the partner's
fixed curriculum, judged by the service's status and progress) and C (oracle), redundant steps,
steps ahead of an unmastered prerequisite, ready lag, false-ready, stuck precision and recall, and
B's complete, false-complete and struggling.

  --base URL             the service (default http://localhost:8787)
  --worlds 101,102,103   family world seeds (default 101,102,103: worlds the engine was never run on in tuning)
  --students N           students per world (default 40)
  --compare              also run the same worlds in process (one more row per world)
  --client-id ID --client-secret SECRET --admin-scope EXTERNAL_USER_ID
                         partner credentials (default: the demo partner of \`npm start\`, ${DEMO_FILE})
  --json                 print the figures as JSON after the table

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
  const seeds = arg("worlds", "101,102,103").split(",").map(Number);
  const students = Number(arg("students", "40"));
  if (seeds.some((s) => !Number.isInteger(s)) || !(students >= 1)) throw new Error(`bad --worlds or --students\n\n${USAGE}`);

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
  const rows: WorldFigures[] = [];
  const results: { seed: number; runner: string; figures: WorldFigures }[] = [];
  console.log(WORLD_HEADER);
  const started = performance.now();
  const http = httpClass(api, runId);
  const local = inProcessClass();
  for (const seed of seeds) {
    const world = generateWorld(familyParams(seed, students), seed, `family ${seed}`);
    const t0 = performance.now();
    const name = `${seed} ${describe(world.params)} sc${world.scope.length}`;
    const f = figures(await runClassA(world, await http(world, "A")), await runClassB(world, await http(world, "B")), runClassC(world), runClassD(world));
    rows.push(f);
    results.push({ seed, runner: "http", figures: f });
    console.log(worldRow(`${name}, HTTP`, f));
    console.error(`  world ${seed}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    if (compare) {
      const g = figures(await runClassA(world, await local(world, "A")), await runClassB(world, await local(world, "B")), runClassC(world), runClassD(world));
      results.push({ seed, runner: "in-process", figures: g });
      console.log(worldRow(`${name}, in-process`, g));
    }
  }
  console.log();
  console.log(familyTable(rows));
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
