import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Environment for every wrangler call: this machine has no network but the npm registry. */
export const wranglerEnv = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

export type Target = "local" | "remote";

/** Runs wrangler quietly (in `cwd`, default this directory); its output is shown (on stderr) only when it fails. */
export function wrangler(args: string[], cwd?: string): string {
  const result = spawnSync("npx", ["--no-install", "wrangler", ...args], { cwd, env: wranglerEnv, encoding: "utf8" });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    throw new Error(`wrangler ${args.join(" ")} failed (exit ${result.status})`);
  }
  return result.stdout;
}

/** Executes SQL statements against the D1 database (local dev database by default; `persistTo` picks another local state dir). */
export function d1Execute(sql: string, target: Target = "local", persistTo?: string): void {
  const dir = mkdtempSync(join(tmpdir(), "pathwise-sql-"));
  const file = join(dir, "statements.sql");
  try {
    writeFileSync(file, sql);
    wrangler([
      "d1",
      "execute",
      "DB",
      `--${target}`,
      `--file=${file}`,
      ...(target === "remote" ? ["--yes"] : []),
      ...(persistTo ? [`--persist-to=${persistTo}`] : []),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one query and returns its rows (JSON output of wrangler). */
export function d1Query<T = Record<string, unknown>>(sql: string, target: Target = "local"): T[] {
  const out = wrangler(["d1", "execute", "DB", `--${target}`, "--json", `--command=${sql}`]);
  const parsed = JSON.parse(out) as { results: T[] }[];
  return parsed[0]?.results ?? [];
}

export function sqlLiteral(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}
