import { fileURLToPath } from "node:url";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/**
 * Two projects, one `npm test`:
 * - `unit`: pure modules (model, graph algorithms, inventory, rate-limit table, config, ...) in plain
 *   Node: no workerd start-up per file.
 * - `workerd`: everything that needs the Worker, D1, Durable Objects or Queues, inside the real
 *   runtime through @cloudflare/vitest-plugin.
 * - `local`: the Worker served by `wrangler dev` (static assets in front, as on Cloudflare), driven
 *   from Node over HTTP and from headless Chromium (the instructor dashboard).
 */
export default defineConfig({
  test: {
    // Two cores on the build machines.
    maxWorkers: 2,
    testTimeout: 30_000,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "local",
          include: ["test/local/**/*.test.ts"],
          environment: "node",
          hookTimeout: 180_000,
          // headless Chromium (found, installed, or the run fails saying how to get it) and one shared wrangler dev
          globalSetup: ["./test/setup/local.ts"],
        },
      },
      {
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TOKEN_SIGNING_KEY: "test-signing-key-0123456789abcdef0123456789abcdef",
                // Pinned to the spec's numbers (docs/rate-limits.md) so a developer's .dev.vars or --var
                // cannot change what the rate-limit tests see; they always run, never skip.
                RATE_LIMIT_MULTIPLIER: "1",
                IP_RATE_LIMIT: "60",
                IP_QUEUE_SIZE: "10",
                TEST_MIGRATIONS: await readD1Migrations(fileURLToPath(new URL("./migrations", import.meta.url))),
                // The OpenAPI fuzz suite's runs per operation and seed (`npm run fuzz -- --runs N --seed S`; empty: the defaults).
                FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
                FUZZ_SEED: process.env.FUZZ_SEED ?? "",
              },
              // wrangler.toml's consumers with a 1 s batch timeout (5 and 10 s deployed) and retries without delay:
              // tests that wait on the real queue take a second; a poison message is dead-lettered after 3 attempts.
              queueConsumers: {
                "pathwise-model-updates": {
                  maxBatchSize: 100,
                  maxBatchTimeout: 1,
                  maxRetries: 2,
                  retryDelay: 0,
                  deadLetterQueue: "pathwise-model-updates-dlq",
                  maxConcurrency: 1,
                },
                "pathwise-projections": {
                  maxBatchSize: 100,
                  maxBatchTimeout: 1,
                  maxRetries: 2,
                  retryDelay: 0,
                  deadLetterQueue: "pathwise-projections-dlq",
                  maxConcurrency: 1,
                },
                "pathwise-erasures": {
                  maxBatchSize: 10,
                  maxBatchTimeout: 1,
                  maxRetries: 2,
                  retryDelay: 0,
                  deadLetterQueue: "pathwise-erasures-dlq",
                  maxConcurrency: 1,
                },
                "pathwise-model-updates-dlq": { maxBatchSize: 10, maxBatchTimeout: 1 },
                "pathwise-projections-dlq": { maxBatchSize: 10, maxBatchTimeout: 1 },
                "pathwise-erasures-dlq": { maxBatchSize: 10, maxBatchTimeout: 1 },
              },
            },
          })),
        ],
        test: {
          name: "workerd",
          include: ["test/**/*.test.ts"],
          // One workerd per vitest worker, reused file after file (its start-up is ~1.4 s a file; the
          // suite's wall time drops by ~40%). Files share D1 and the objects: every test makes its own
          // partner, accounts and registrations (test/support/api.ts), so nothing depends on an empty store.
          isolate: false,
          exclude: ["test/unit/**", "test/local/**"],
          setupFiles: ["./test/setup/apply-migrations.ts"],
        },
      },
    ],
  },
});
