import { RATE_WINDOW_MS, type WindowState } from "./table";

export type HitResult = ({ allowed: true } | { allowed: false; retryAfterMs: number }) & WindowState;

/**
 * An exact sliding-window log in a Durable Object's SQLite: one row per admitted request
 * (bucket, time). The window at time `now` is (now - windowMs, now]: a request made at t counts
 * until t + windowMs, and the request refused because the window was full is allowed again at
 * exactly that instant. Refused requests are not recorded. Every call first deletes all rows that
 * left the window (in every bucket), so the table never holds more than the requests of the last
 * window, and at most `limit` rows per bucket.
 *
 * Time is the caller's `now` (ms), so tests drive the clock.
 */
export class SlidingWindowLog {
  readonly #sql: SqlStorage;
  readonly #windowMs: number;

  constructor(sql: SqlStorage, windowMs = RATE_WINDOW_MS) {
    this.#sql = sql;
    this.#windowMs = windowMs;
    this.init();
  }

  /** (Re)creates the table; call again after `storage.deleteAll()`. */
  init(): void {
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS rl_hits (bucket TEXT NOT NULL, t INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS rl_hits_bucket_t ON rl_hits (bucket, t);
       CREATE INDEX IF NOT EXISTS rl_hits_t ON rl_hits (t);`,
    );
  }

  /** Counts a request in `bucket` if the window has room. */
  hit(bucket: string, limit: number, now: number): HitResult {
    const since = this.prune(now);
    const { n, oldest } = this.#sql
      .exec<{ n: number; oldest: number | null }>("SELECT COUNT(*) AS n, MIN(t) AS oldest FROM rl_hits WHERE bucket = ? AND t > ?", bucket, since)
      .one();
    if (n >= limit) {
      // Room opens when enough of the oldest requests have left: with n >= limit counted,
      // the (n - limit + 1)-th oldest must leave (n === limit: the oldest).
      const row = this.#sql.exec<{ t: number }>("SELECT t FROM rl_hits WHERE bucket = ? AND t > ? ORDER BY t LIMIT 1 OFFSET ?", bucket, since, n - limit).one();
      const retryAfterMs = row.t + this.#windowMs - now;
      return { allowed: false, retryAfterMs, limit, remaining: 0, resetMs: retryAfterMs };
    }
    this.#sql.exec("INSERT INTO rl_hits (bucket, t) VALUES (?, ?)", bucket, now);
    return { allowed: true, limit, remaining: limit - n - 1, resetMs: (oldest ?? now) + this.#windowMs - now };
  }

  /**
   * Counts a request in every one of `buckets` if each has room, else in none (refused until the
   * last of the full ones has room). The state reported is the most constrained bucket's.
   */
  hitAll(buckets: string[], limit: number, now: number): HitResult {
    if (buckets.length === 1) return this.hit(buckets[0] as string, limit, now);
    const since = this.prune(now);
    let refusedFor = 0;
    let tightest: { n: number; oldest: number | null } | undefined;
    for (const bucket of buckets) {
      const row = this.#sql
        .exec<{ n: number; oldest: number | null }>("SELECT COUNT(*) AS n, MIN(t) AS oldest FROM rl_hits WHERE bucket = ? AND t > ?", bucket, since)
        .one();
      if (row.n >= limit) {
        const t = this.#sql
          .exec<{ t: number }>("SELECT t FROM rl_hits WHERE bucket = ? AND t > ? ORDER BY t LIMIT 1 OFFSET ?", bucket, since, row.n - limit)
          .one().t;
        refusedFor = Math.max(refusedFor, t + this.#windowMs - now);
      }
      if (!tightest || row.n > tightest.n) tightest = row;
    }
    if (refusedFor > 0) return { allowed: false, retryAfterMs: refusedFor, limit, remaining: 0, resetMs: refusedFor };
    for (const bucket of buckets) this.#sql.exec("INSERT INTO rl_hits (bucket, t) VALUES (?, ?)", bucket, now);
    const n = tightest?.n ?? 0;
    return { allowed: true, limit, remaining: limit - n - 1, resetMs: (tightest?.oldest ?? now) + this.#windowMs - now };
  }

  /** Takes back one request counted in `bucket` at exactly `t` (none if there is none). */
  unhit(bucket: string, t: number): void {
    this.#sql.exec("DELETE FROM rl_hits WHERE rowid = (SELECT rowid FROM rl_hits WHERE bucket = ? AND t = ? LIMIT 1)", bucket, t);
  }

  /** Deletes every row that left the window at `now`; returns the window's exclusive lower bound. */
  prune(now: number): number {
    const since = now - this.#windowMs;
    this.#sql.exec("DELETE FROM rl_hits WHERE t <= ?", since);
    return since;
  }

  /** Latest recorded time, or undefined when empty. */
  latest(): number | undefined {
    return this.#sql.exec<{ t: number | null }>("SELECT MAX(t) AS t FROM rl_hits").one().t ?? undefined;
  }
}
