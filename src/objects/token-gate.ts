import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { LimitKind, WindowState } from "../http/rate-limits";
import { SlidingWindowLog } from "./sliding-window";

/** One rate-limit check, computed by `protect` from the rate-limit table and the request. */
export interface LimitCheck {
  kind: LimitKind;
  /** the counter: "METHOD /concrete/path" for token limits, the route key for partner limits */
  bucket: string;
  /** requests per window (already scaled by the configured multiplier) */
  limit: number;
  /** the caller's clock, ms since the epoch (protect passes Date.now(); tests pass their own) */
  now: number;
  partnerId: string;
}

export type AdmitResult =
  | { ok: true; window?: WindowState }
  | { ok: false; reason: "revoked" }
  | { ok: false; reason: "token-limited" | "partner-limited"; retryAfterMs: number; window: WindowState };

/**
 * One object per access token (named by the token id). Every authenticated request calls `admit`
 * once: it refuses revoked tokens, then counts the request in the token's sliding window for
 * (method, concrete path), or, for partner-limited endpoints, asks the partner's PartnerGate
 * (a Durable-Object-to-Durable-Object call, so the Worker still makes one call per request).
 * An alarm at token expiry deletes everything, so idle gates hold nothing.
 */
export class TokenGate extends DurableObject<Env> {
  readonly #log = new SlidingWindowLog(this.ctx.storage.sql);

  async admit(expiresAtMs: number, check?: LimitCheck): Promise<AdmitResult> {
    if (this.ctx.storage.kv.get<boolean>("revoked")) return { ok: false, reason: "revoked" };
    await this.scheduleCleanup(expiresAtMs);
    if (!check) return { ok: true };
    if (check.kind === "partner") {
      const gate = this.env.PARTNER_GATE.get(this.env.PARTNER_GATE.idFromName(`partner:${check.partnerId}`));
      const r = await gate.hit(check.bucket, check.limit, check.now);
      return r.allowed ? { ok: true, window: windowOf(r) } : { ok: false, reason: "partner-limited", retryAfterMs: r.retryAfterMs, window: windowOf(r) };
    }
    const r = this.#log.hit(check.bucket, check.limit, check.now);
    return r.allowed ? { ok: true, window: windowOf(r) } : { ok: false, reason: "token-limited", retryAfterMs: r.retryAfterMs, window: windowOf(r) };
  }

  async revoke(expiresAtMs: number): Promise<void> {
    this.ctx.storage.kv.put("revoked", true);
    await this.scheduleCleanup(expiresAtMs);
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.#log.init();
  }

  private async scheduleCleanup(expiresAtMs: number): Promise<void> {
    if (this.ctx.storage.kv.get<number>("cleanup_at") === expiresAtMs) return;
    this.ctx.storage.kv.put("cleanup_at", expiresAtMs);
    await this.ctx.storage.setAlarm(expiresAtMs);
  }
}

const windowOf = (r: WindowState): WindowState => ({ limit: r.limit, remaining: r.remaining, resetMs: r.resetMs });
