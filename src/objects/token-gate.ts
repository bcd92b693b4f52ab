import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { sha256Hex } from "../lib/digest";
import { SlidingWindowLog } from "../rate-limits/sliding-window";
import { type LimitKind, RATE_WINDOW_MS, type WindowState } from "../rate-limits/table";

/** One rate-limit check, computed by `protect` from the rate-limit table and the request. */
export interface LimitCheck {
  kind: LimitKind;
  /**
   * the counter: "METHOD /concrete/path" for token limits, the route key for partner limits; several
   * token counters (an xAPI request naming several registrations) are counted all or none
   */
  bucket: string | string[];
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
 *
 * Storage: kv `revoked`, kv `cleanup_at` (the token's expiry), kv `alarm_at` (the pending alarm)
 * and the window rows. One alarm does two jobs: a minute after the first counted request of an
 * active period it deletes the rows that left the window and re-arms for the rows still in it
 * (so idle gates hold no window rows, only the revocation flag and the expiry); at the token's
 * expiry it deletes everything. The alarm is only moved when it must come earlier, so a busy
 * token does not reschedule it on every request.
 */
export class TokenGate extends DurableObject<Env> {
  readonly #log = new SlidingWindowLog(this.ctx.storage.sql);

  async admit(expiresAtMs: number, check?: LimitCheck): Promise<AdmitResult> {
    if (this.ctx.storage.kv.get<boolean>("revoked")) return { ok: false, reason: "revoked" };
    this.rememberExpiry(expiresAtMs);
    if (!check) {
      await this.arm();
      return { ok: true };
    }
    if (check.kind === "partner") {
      await this.arm();
      const gate = this.env.PARTNER_GATE.get(this.env.PARTNER_GATE.idFromName(`partner:${check.partnerId}`));
      const r = await gate.hit(String(check.bucket), check.limit, check.now);
      return r.allowed ? { ok: true, window: windowOf(r) } : { ok: false, reason: "partner-limited", retryAfterMs: r.retryAfterMs, window: windowOf(r) };
    }
    const r =
      typeof check.bucket === "string"
        ? this.#log.hit(await windowKey(check.bucket), check.limit, check.now)
        : this.#log.hitAll(await Promise.all(check.bucket.map(windowKey)), check.limit, check.now);
    await this.arm(r.allowed ? check.now + RATE_WINDOW_MS : undefined);
    return r.allowed ? { ok: true, window: windowOf(r) } : { ok: false, reason: "token-limited", retryAfterMs: r.retryAfterMs, window: windowOf(r) };
  }

  async revoke(expiresAtMs: number): Promise<void> {
    this.ctx.storage.kv.put("revoked", true);
    this.rememberExpiry(expiresAtMs);
    await this.arm();
  }

  /**
   * The token's account is being erased (docs/privacy.md): the token is revoked and its windows are
   * deleted; returns how many window rows went. The gate keeps only the revocation flag, that count
   * and its expiry (the expiry alarm then deletes everything).
   */
  async erase(expiresAtMs: number): Promise<number> {
    const kv = this.ctx.storage.kv;
    const done = kv.get<number>("erased_windows");
    if (done !== undefined) return done; // a resumed erasure job asks again: the same count
    const removed = this.ctx.storage.sql.exec("DELETE FROM rl_hits").rowsWritten;
    kv.put("erased_windows", removed);
    await this.revoke(expiresAtMs);
    return removed;
  }

  override async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const expiry = kv.get<number>("cleanup_at");
    const due = kv.get<number>("alarm_at");
    kv.delete("alarm_at");
    const now = Date.now();
    if (expiry === undefined || due === expiry || now >= expiry) {
      // the token has expired: nothing of it is needed any more
      await this.ctx.storage.deleteAll();
      this.#log.init();
      return;
    }
    // idle (or still active): drop the rows that left the window, keep `revoked`
    this.#log.prune(now);
    const latest = this.#log.latest();
    await this.arm(latest === undefined ? undefined : latest + RATE_WINDOW_MS);
  }

  private rememberExpiry(expiresAtMs: number): void {
    if (this.ctx.storage.kv.get<number>("cleanup_at") !== expiresAtMs) this.ctx.storage.kv.put("cleanup_at", expiresAtMs);
  }

  /**
   * Makes sure an alarm is pending no later than `windowEnd` (when the last window rows can go)
   * and never later than the expiry. An earlier pending alarm is kept: when it fires it prunes
   * and re-arms for the rows still in the window.
   */
  private async arm(windowEnd?: number): Promise<void> {
    const kv = this.ctx.storage.kv;
    const expiry = kv.get<number>("cleanup_at");
    if (expiry === undefined) return;
    const target = windowEnd === undefined ? expiry : Math.min(expiry, windowEnd);
    const pending = kv.get<number>("alarm_at");
    if (pending !== undefined && pending <= target) return;
    kv.put("alarm_at", target);
    await this.ctx.storage.setAlarm(target);
  }
}

/**
 * The stored name of a window: a SHA-256 digest of the bucket ("METHOD /concrete/path"), so a gate
 * never stores the ids a path names (an erased registration's id would otherwise linger in the
 * partner admin's gate for the rest of the window; docs/privacy.md).
 */
export const windowKey = (bucket: string): Promise<string> => sha256Hex(bucket);

const windowOf = (r: WindowState): WindowState => ({ limit: r.limit, remaining: r.remaining, resetMs: r.resetMs });
