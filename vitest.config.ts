import { fileURLToPath } from "node:url";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
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
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/setup/apply-migrations.ts"],
    // Two cores on the build machines: keep the workerd pool small.
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
