// Part of `npm run deploy:check` (and so of `npm test`): the deployment's settings in wrangler.toml
// ([vars], and each [env.NAME]'s) must parse with the Worker's own configFrom (src/config.ts), so a bad
// value (a CORS_ALLOWED_ORIGINS with "*", a TTL that is not a number) fails here, before a deploy, and
// never as a 500 at request time. Secrets are not in the file: the Worker checks them when it starts
// (src/index.ts), which fails the deployment (or `npm start`) instead of a request.
//   tsx scripts/check-config.ts [--config wrangler.toml]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { unstable_readConfig } from "wrangler";
import { ConfigError, configFrom } from "../src/config";
import type { Env } from "../src/env";

/** Stands in for the secrets the file does not hold (checked at startup instead). */
const SECRETS = { TOKEN_SIGNING_KEY: "deploy-check-placeholder-0123456789abcdef" };

/** The problems of each environment of a wrangler configuration file ("" = the top level); empty when every one parses. */
export function configProblems(configPath: string): string[] {
  const names = ["", ...new Set([...readFileSync(configPath, "utf8").matchAll(/^\s*\[+env\.([A-Za-z0-9_-]+)[\].]/gm)].map((m) => m[1] as string))];
  const problems: string[] = [];
  for (const name of names) {
    const config = unstable_readConfig({ config: configPath, ...(name ? { env: name } : {}) }, {});
    try {
      configFrom({ ...SECRETS, ...(config.vars as Record<string, unknown>) } as unknown as Env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(`${configPath}${name ? ` [env.${name}]` : ""}: ${error.message}`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { config: { type: "string", default: "wrangler.toml" } } });
  const problems = configProblems(values.config as string);
  for (const p of problems) process.stderr.write(`${p}\n`);
  if (problems.length) process.exit(1);
  process.stderr.write(`${values.config}: the deployment's settings parse (src/config.ts)\n`);
}
