import type { TokenGate } from "./objects/token-gate";

/** Bindings and variables of the Worker (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  DB: D1Database;
  TOKEN_GATE: DurableObjectNamespace<TokenGate>;
  /** HMAC key that signs access tokens (a secret: `wrangler secret put TOKEN_SIGNING_KEY`). */
  TOKEN_SIGNING_KEY: string;
  ACCESS_TOKEN_TTL_SECONDS?: string;
  REFRESH_TOKEN_TTL_SECONDS?: string;
}

type WorkerEnv = Env;
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
