import { applyD1Migrations, env } from "cloudflare:test";

// Runs before each test file: the local D1 of the test runtime gets the same flat migrations as production.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
