import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalService, startLocalService } from "../../scripts/lib/local-service";
import { seedDemo } from "../../scripts/lib/seed-demo";

/**
 * README.md's first session, run as written: the shell blocks of its "A first session with curl"
 * section are extracted from README.md itself (so this test breaks when the README drifts) and run
 * with bash against a Worker under `wrangler dev` prepared as `npm start` prepares one (a partner,
 * the demo data seeded through the API, the credentials in .wrangler/demo-partner.json). Its own
 * service, not the project's shared one: the demo data's fixed ids are the dashboard test's too.
 */
const SECTION = "## A first session with curl";

function sessionCommands(readme: string): string[] {
  const start = readme.indexOf(SECTION);
  expect(start, `README.md has a "${SECTION}" section`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf("\n## ", start + SECTION.length);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

let service: LocalService;
let workdir: string;

beforeAll(async () => {
  service = await startLocalService();
  const seeded = await seedDemo(service.base, service.credentials);
  workdir = mkdtempSync(join(tmpdir(), "pathwise-readme-"));
  mkdirSync(join(workdir, ".wrangler"));
  // what `npm start` writes (scripts/start.ts)
  writeFileSync(join(workdir, ".wrangler/demo-partner.json"), JSON.stringify({ credentials: service.credentials, seeded }, null, 2));
});

afterAll(async () => {
  await service?.stop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe("README.md, A first session with curl", () => {
  it("runs as written: account, instance, registration, goal assigned, answers; recommendation, status and predicted score answer", () => {
    const blocks = sessionCommands(readFileSync("README.md", "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const run = spawnSync("bash", ["-e", "-o", "pipefail", "-c", blocks.join("\n")], {
      cwd: workdir,
      env: { ...process.env, BASE: service.base },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status, `exit ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    expect(run.stderr).toBe("");
    // one line per printed answer, in the order of the steps
    const [assignment, answer, statementIds, recommendation, status, predicted, ...rest] = run.stdout.trim().split("\n");
    expect(rest).toEqual([]);
    expect(JSON.parse(assignment as string)).toEqual({ goal_id: expect.any(String), registration_id: expect.any(String) });
    expect(answer).toBe("204");
    expect(JSON.parse(statementIds as string)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    const rec = JSON.parse(recommendation as string);
    expect(rec.module_ids.length).toBeGreaterThan(0);
    expect(rec.status).toBe("in progress");
    const table = JSON.parse(status as string);
    expect(table.data).toHaveLength(1);
    expect(table.data[0].status_and_progress[0].status).not.toBe("no_work");
    const scores = JSON.parse(predicted as string);
    expect(Object.keys(scores.account_scores)).toHaveLength(1);
  });
});
