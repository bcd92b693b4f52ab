import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { sha256Hex } from "../lib/digest";
import { SlidingWindowLog } from "../rate-limits/sliding-window";
import { type LimitedBy, type LimitKind, RATE_WINDOW_MS, type WindowState } from "../rate-limits/table";
import { type GateShard, shardName } from "../rate-limits/token-shards";

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
  | { ok: false; reason: Exclude<LimitedBy, "ip-limited">; retryAfterMs: number; window: WindowState };

const REVOKED: AdmitResult = { ok: false, reason: "revoked" };
const SHARD_PREFIX = "shard:";

/**
 * A shard of an access token's gate (src/rate-limits/token-shards.ts): shard 0 is named by the token
 * id, shard i > 0 "<jti>/<i>"; a token issued with one shard has only shard 0, the one gate per
 * token of before. Every authenticated request calls `admit` once on the shard that holds its
 * window (src/http/admit.ts): it refuses revoked tokens, then counts the request in the sliding
 * window of (method, concrete path), or, for partner-limited endpoints, asks the partner's
 * PartnerGate (a Durable-Object-to-Durable-Object call, so the Worker still makes one call per
 * request). An xAPI request whose windows fall on several shards calls each, and `release` takes
 * back its counts if another shard refused it.
 *
 * Revocation reaches every shard before `revoke` returns: a shard i > 0 enlists with shard 0 before
 * it admits its first request (one extra call per shard and token lifetime), shard 0 keeps the list
 * (kv `shard:<i>`, and `jti`) and `revoke` on shard 0 flags itself, then every enlisted shard. A
 * shard enlisting after the flag is set is told the token is revoked, so no shard ever admits a
 * request after a revocation has returned. `erase` reaches every shard the same way.
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
    await Promise.all((await this.revokeHere(expiresAtMs)).map((shard) => shard.revoke(expiresAtMs)));
  }

  /**
   * The token's account is being erased (docs/privacy.md): the token is revoked and its windows are
   * deleted, on this shard and (shard 0) on every enlisted shard; returns how many window rows went
   * in all. A shard keeps only the revocation flag, the counts and its expiry (the expiry alarm then
   * deletes everything). Asked again (a resumed erasure job), it answers the same count.
   */
  async erase(expiresAtMs: number): Promise<number> {
    const kv = this.ctx.storage.kv;
    const done = kv.get<number>("erased_windows");
    if (done !== undefined) return done;
    let own = kv.get<number>("erased_own");
    if (own === undefined) {
      own = this.ctx.storage.sql.exec("DELETE FROM rl_hits").rowsWritten;
      kv.put("erased_own", own);
    }
    const others = await Promise.all((await this.revokeHere(expiresAtMs)).map((shard) => shard.erase(expiresAtMs)));
    const removed = others.reduce((a, b) => a + b, own);
    kv.put("erased_windows", removed);
    return removed;
  }

  /**
   * Takes back one count of each of `buckets` made at `now` (src/http/admit.ts: a request counted on
   * this shard but refused by another shard of the token). Counts made at the same instant in one
   * window are interchangeable, so any one of them goes.
   */
  async release(buckets: string[], now: number): Promise<void> {
    for (const key of await Promise.all(buckets.map(windowKey))) this.#log.unhit(key, now);
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

  /**
   * Flags the token revoked on this shard; on shard 0 also answers the other shards it has enlisted
   * (the caller revokes or erases them before returning). The list is read in the same synchronous
   * step as the flag is set: a shard enlisting later is told the token is revoked.
   */
  private async revokeHere(expiresAtMs: number): Promise<DurableObjectStub<TokenGate>[]> {
    const kv = this.ctx.storage.kv;
    kv.put("revoked", true);
    const jti = kv.get<string>("jti");
    const shards = [...kv.list<boolean>({ prefix: SHARD_PREFIX })].map(([key]) => Number(key.slice(SHARD_PREFIX.length)));
    this.rememberExpiry(expiresAtMs);
    await this.arm();
    if (jti === undefined) return [];
    return shards.map((i) => this.env.TOKEN_GATE.get(this.env.TOKEN_GATE.idFromName(shardName(jti, i))));
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
