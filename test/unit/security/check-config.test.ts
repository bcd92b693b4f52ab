import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configProblems } from "../../../scripts/check-config";

/** The deploy check (npm run deploy:check) refuses a wrangler.toml whose vars the Worker could not start with. */
function configFile(vars: string): string {
  const dir = mkdtempSync(join(tmpdir(), "check-config-"));
  const path = join(dir, "wrangler.toml");
  writeFileSync(path, `name = "t"\nmain = "x.ts"\ncompatibility_date = "2025-01-01"\n${vars}`);
  return path;
}

describe("scripts/check-config.ts", () => {
  it("the project's wrangler.toml parses", () => {
    expect(configProblems("wrangler.toml")).toEqual([]);
  });

  it('a CORS_ALLOWED_ORIGINS with "*" fails the check, at the top level and in an [env.NAME]', () => {
    expect(configProblems(configFile('[vars]\nCORS_ALLOWED_ORIGINS = "*"\n'))).toEqual([expect.stringMatching(/CORS_ALLOWED_ORIGINS/)]);
    const inEnv = configProblems(configFile('[vars]\nCORS_ALLOWED_ORIGINS = ""\n[env.staging.vars]\nCORS_ALLOWED_ORIGINS = "https://a.example, *"\n'));
    expect(inEnv).toEqual([expect.stringMatching(/\[env\.staging\].*CORS_ALLOWED_ORIGINS/)]);
  });
});
