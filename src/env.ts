import type { IpGate } from "./objects/ip-gate";
import type { PartnerGate } from "./objects/partner-gate";
import type { RegistrationObject } from "./objects/registration/registration-object";
import type { TokenGate } from "./objects/token-gate";
import type { ErasureMessage, ModelUpdateBody, ProjectionMessage } from "./queues/messages";

/** Bindings and variables of the Worker (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  DB: D1Database;
  /** the static files of public/ (wrangler.toml [assets]), served by src/http/static-assets.ts; absent in harnesses that run the Worker without them */
  ASSETS?: Fetcher;
  TOKEN_GATE: DurableObjectNamespace<TokenGate>;
  /** one object per registration: event log and learner state */
  REGISTRATIONS: DurableObjectNamespace<RegistrationObject>;
  PARTNER_GATE: DurableObjectNamespace<PartnerGate>;
  IP_GATE: DurableObjectNamespace<IpGate>;
  /** graded answers for online item refinement (src/queues/model-updates.ts) */
  MODEL_UPDATES: Queue<ModelUpdateBody>;
  /** registrations' learner-state projections, merged per (account, graph) for predicted scores (src/queues/projections.ts) */
  PROJECTIONS: Queue<ProjectionMessage>;
  /** erasure jobs: each message advances one erasure (src/queues/erasures.ts, docs/privacy.md) */
  ERASURES: Queue<ErasureMessage>;
  /** HMAC key that signs access tokens (a secret: `wrangler secret put TOKEN_SIGNING_KEY`). */
  TOKEN_SIGNING_KEY: string;
  ACCESS_TOKEN_TTL_SECONDS?: string;
  REFRESH_TOKEN_TTL_SECONDS?: string;
  /** scales every rate limit; "0" or "off" disables rate limiting (docs/rate-limits.md) */
  RATE_LIMIT_MULTIPLIER?: string;
  /** requests per minute per (client IP, URI path) for unauthenticated and failed-auth requests */
  IP_RATE_LIMIT?: string;
  /** requests per (client IP, URI path) queued beyond IP_RATE_LIMIT before 429 ip-limited */
  IP_QUEUE_SIZE?: string;
  /** shards of each new access token's gate (1 .. 64; default 16): one token's traffic spreads over that many objects */
  TOKEN_GATE_SHARDS?: string;
  /** comma-separated web origins allowed to call /v0 from a browser; unset or empty: CORS off */
  CORS_ALLOWED_ORIGINS?: string;
  /** bearer secret of the operator diagnostics (a secret: `wrangler secret put OPERATOR_TOKEN`); unset: they are off */
  OPERATOR_TOKEN?: string;
}

type WorkerEnv = Env;
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
