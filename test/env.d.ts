import type { D1Migration } from "@cloudflare/vitest-plugin";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** runs per operation of the OpenAPI fuzz suite ("" = its defaults) */
      FUZZ_RUNS: string;
      /** seed of the OpenAPI fuzz suite ("" = its fixed default) */
      FUZZ_SEED: string;
    }
  }
}
