// `npm start`: the service on an embedded default, ready to call.
// Applies migrations to the local D1, ensures a signing key in .dev.vars and a demo partner,
// serves http://localhost:8787 through wrangler's local simulator, seeds demo data, prints credentials.
// Environment: PORT (default 8787); RATE_LIMIT_MULTIPLIER (default: wrangler.toml's 1) is passed to
// the Worker, e.g. `RATE_LIMIT_MULTIPLIER=1000 npm start` for the learner simulator or load tests.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { PartnerCredentials } from "../src/services/partners";
import { dashboardLink, seedDemo } from "./lib/seed-demo";
import { d1Query, wrangler, wranglerEnv } from "./lib/wrangler";
import { createPartner } from "./partner";

const PORT = Number(process.env.PORT ?? 8787);
const BASE = `http://localhost:${PORT}`;
const DEMO_FILE = ".wrangler/demo-partner.json";

function ensureDevVars(): void {
  const existing = existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "";
  if (/^TOKEN_SIGNING_KEY=/m.test(existing)) return;
  const line = `TOKEN_SIGNING_KEY=${randomBytes(32).toString("hex")}\n`;
  writeFileSync(".dev.vars", existing + (existing && !existing.endsWith("\n") ? "\n" : "") + line);
  console.error("Created .dev.vars with a random TOKEN_SIGNING_KEY.");
}

interface DemoState {
  credentials: PartnerCredentials;
  seeded?: Record<string, unknown>;
}

async function ensureDemoPartner(): Promise<DemoState> {
  if (existsSync(DEMO_FILE)) {
    const state = JSON.parse(readFileSync(DEMO_FILE, "utf8")) as DemoState;
    const rows = d1Query(`SELECT id FROM partners WHERE id = '${state.credentials.partner_id.replace(/'/g, "")}'`);
    if (rows.length > 0) return state;
  }
  const credentials = await createPartner("Demo partner", "local");
  const state: DemoState = { credentials };
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(state, null, 2));
  return state;
}

async function waitForServer(timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${BASE}/v0/openapi.json`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the service did not answer on ${BASE} within ${timeoutMs / 1000} s`);
}

async function main() {
  ensureDevVars();
  console.error("Applying D1 migrations to the local database...");
  wrangler(["d1", "migrations", "apply", "DB", "--local"]);
  const state = await ensureDemoPartner();

  const multiplier = process.env.RATE_LIMIT_MULTIPLIER;
  const vars = multiplier ? ["--var", `RATE_LIMIT_MULTIPLIER:${multiplier}`] : [];
  const dev = spawn("npx", ["--no-install", "wrangler", "dev", "--port", String(PORT), "--ip", "127.0.0.1", "--show-interactive-dev-session=false", ...vars], {
    env: wranglerEnv,
    stdio: ["ignore", "inherit", "inherit"],
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
  dev.on("exit", (code) => process.exit(code ?? 0));

  await waitForServer();
  if (!state.seeded) {
    state.seeded = await seedDemo(BASE, state.credentials);
    writeFileSync(DEMO_FILE, JSON.stringify(state, null, 2));
  }
  const c = state.credentials;
  const dashboard = await dashboardLink(BASE, c, state.seeded);
  console.log(`
Pathwise is running on ${BASE}   (API docs: ${BASE}/docs)${multiplier ? `   RATE_LIMIT_MULTIPLIER=${multiplier}` : ""}

Demo partner credentials (also in ${DEMO_FILE}):
  client_id:              ${c.client_id}
  client_secret:          ${c.client_secret}
  admin scope:            ${c.admin_external_user_id}
  admin_account_id:       ${c.admin_account_id}
  partner_id:             ${c.partner_id}
Demo data: ${JSON.stringify(state.seeded)}

Instructor dashboard of the demo class (a fresh demo-instructor token, valid for an hour; open it in a browser):
  ${dashboard}

Get an admin token:
  curl -s -u '${c.client_id}:${c.client_secret}' -d grant_type=client_credentials -d scope=${c.admin_external_user_id} ${BASE}/v0/oauth/token
`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
