import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { SlidingWindowLog } from "../rate-limits/sliding-window";
import { type LimitKind, RATE_WINDOW_MS, type WindowState } from "../rate-limits/table";
import { type GateShard, shardName } from "../rate-limits/token-shards";

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

const REVOKED: AdmitResult = { ok: false, reason: "revoked" };
const SHARD_PREFIX = "shard:";

/**
 * A shard of an access token's gate (src/rate-limits/token-shards.ts): shard 0 is named by the token
 * id, shard i > 0 "<jti>/<i>"; a token issued with one shard has only shard 0, the one gate per
 * token of before. Every authenticated request calls `admit` on the shard of its concrete path
 * once: it refuses revoked tokens, then counts the request in the sliding window of (method,
 * concrete path), or, for partner-limited endpoints, asks the partner's PartnerGate (a
 * Durable-Object-to-Durable-Object call, so the Worker still makes one call per request).
 *
 * Revocation reaches every shard before `revoke` returns: a shard i > 0 enlists with shard 0 before
 * it admits its first request (one extra call per shard and token lifetime), shard 0 keeps the list
 * (kv `shard:<i>`, and `jti`) and `revoke` on shard 0 flags itself, then every enlisted shard. A
 * shard enlisting after the flag is set is told the token is revoked, so no shard ever admits a
 * request after a revocation has returned.
 *
 * Storage: kv `revoked`, kv `cleanup_at` (the token's expiry), kv `alarm_at` (the pending alarm),
 * kv `enlisted` (shard i > 0), the enlisted shards (shard 0), and the window rows. One alarm does two
 * jobs: a minute after the first counted request of an active period it deletes the rows that left
 * the window and re-arms for the rows still in it (so idle shards hold no window rows, only flags
 * and the expiry); at the token's expiry it deletes everything. The alarm is only moved when it
 * must come earlier, so a busy shard does not reschedule it on every request.
 */
export class TokenGate extends DurableObject<Env> {
  readonly #log = new SlidingWindowLog(this.ctx.storage.sql);
  /** this object's enlistment with shard 0 while it is in flight (this object's own requests share it) */
  #enlisting: Promise<boolean> | undefined;

  /** `shard`: which shard of which token this is (omitted: shard 0, or a token with one shard). */
  async admit(expiresAtMs: number, check?: LimitCheck, shard?: GateShard): Promise<AdmitResult> {
    const kv = this.ctx.storage.kv;
    if (kv.get<boolean>("revoked")) return REVOKED;
    if (shard && shard.index !== 0 && !kv.get<boolean>("enlisted")) {
      if (await this.enlist(shard, expiresAtMs)) return REVOKED;
      // a revocation may have arrived while enlisting
      if (kv.get<boolean>("revoked")) return REVOKED;
    }
    this.rememberExpiry(expiresAtMs);
    if (!check) {
      await this.arm();
      return { ok: true };
    }
    if (check.kind === "partner") {
      await this.arm();
      const gate = this.env.PARTNER_GATE.get(this.env.PARTNER_GATE.idFromName(`partner:${check.partnerId}`));
      const r = await gate.hit(check.bucket, check.limit, check.now);
      return r.allowed ? { ok: true, window: windowOf(r) } : { ok: false, reason: "partner-limited", retryAfterMs: r.retryAfterMs, window: windowOf(r) };
    }
    const r = this.#log.hit(check.bucket, check.limit, check.now);
    await this.arm(r.allowed ? check.now + RATE_WINDOW_MS : undefined);
    return r.allowed ? { ok: true, window: windowOf(r) } : { ok: false, reason: "token-limited", retryAfterMs: r.retryAfterMs, window: windowOf(r) };
  }

  /**
   * Shard 0 only: records that shard `index` of token `jti` is in use, unless the token is already
   * revoked (answers true: the shard must refuse).
   */
  async join(index: number, jti: string, expiresAtMs: number): Promise<boolean> {
    const kv = this.ctx.storage.kv;
    if (kv.get<boolean>("revoked")) return true;
    if (kv.get<string>("jti") !== jti) kv.put("jti", jti);
    if (!kv.get<boolean>(`${SHARD_PREFIX}${index}`)) kv.put(`${SHARD_PREFIX}${index}`, true);
    this.rememberExpiry(expiresAtMs);
    await this.arm();
    return false;
  }

  /** Refuses the token from now on, on this shard and (shard 0) on every enlisted shard, before returning. */
  async revoke(expiresAtMs: number): Promise<void> {
    const kv = this.ctx.storage.kv;
    kv.put("revoked", true);
    // read in the same synchronous step as the flag: a shard enlisting later is told it is revoked
    const jti = kv.get<string>("jti");
    const shards = [...kv.list<boolean>({ prefix: SHARD_PREFIX })].map(([key]) => Number(key.slice(SHARD_PREFIX.length)));
    this.rememberExpiry(expiresAtMs);
    await this.arm();
    if (jti === undefined) return;
    await Promise.all(shards.map((i) => this.env.TOKEN_GATE.get(this.env.TOKEN_GATE.idFromName(shardName(jti, i))).revoke(expiresAtMs)));
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

  /**
   * Shard i > 0, before its first request: enlists with shard 0 (one call per shard lifetime; the
   * object's concurrent first requests share it). True when the token turned out to be revoked.
   */
  private async enlist(shard: GateShard, expiresAtMs: number): Promise<boolean> {
    this.#enlisting ??= (async () => {
      try {
        return await this.env.TOKEN_GATE.get(this.env.TOKEN_GATE.idFromName(shardName(shard.jti, 0))).join(shard.index, shard.jti, expiresAtMs);
      } finally {
        this.#enlisting = undefined;
      }
    })();
    const revoked = await this.#enlisting;
    const kv = this.ctx.storage.kv;
    if (revoked) {
      kv.put("revoked", true);
      this.rememberExpiry(expiresAtMs);
      await this.arm();
    } else if (!kv.get<boolean>("enlisted")) {
      kv.put("enlisted", true);
    }
    return revoked;
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

const windowOf = (r: WindowState): WindowState => ({ limit: r.limit, remaining: r.remaining, resetMs: r.resetMs });
