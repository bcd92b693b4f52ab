import { lifecycleLimits, RATE_WINDOW_MS, type RateLimitRule, rateLimits } from "../src/rate-limits/table";

/**
 * Client-side pacing for the spec 8.2 limits, so a well-behaved caller rarely sees a 429.
 *
 * The table is the service's own (src/rate-limits/table.ts, pure data). Like the service, the pacer
 * counts per (access token, method, concrete path) for token limits and per (method, endpoint) for
 * partner limits, in a sliding window of RATE_WINDOW_MS: a request waits until it fits. The
 * service's answers correct it: `RateLimit-Limit` replaces the table's number (a deployment may scale
 * the limits), `RateLimit-Remaining: 0` with `RateLimit-Reset`, a 429's `Retry-After` and an IP
 * queue's `X-Service-Rate-Delay` hold the key until then. One pacer is shared by every scope of a
 * client; separate processes do not see each other's requests (the service's 429 covers that).
 */

interface Route {
  method: string;
  pattern: RegExp;
  params: number;
  template: string;
  rule: RateLimitRule;
}

const ROUTES: Route[] = Object.entries({ ...rateLimits, ...lifecycleLimits })
  .map(([key, rule]) => {
    const [method, template] = key.split(" ") as [string, string];
    const source = template
      .split(/\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^/]+");
    return { method, template, rule, pattern: new RegExp(`^${source}$`), params: (template.match(/\{/g) ?? []).length };
  })
  // a literal segment wins over a parameter: GET /v0/accounts/current before GET /v0/accounts/{account_id}
  .sort((a, b) => a.params - b.params);

/** The 8.2 row of a concrete request (e.g. POST /v0/registrations/3f.../graded-events), or undefined. */
export function limitOf(method: string, pathname: string): { template: string; rule: RateLimitRule } | undefined {
  const m = method.toUpperCase();
  const route = ROUTES.find((r) => r.method === m && r.pattern.test(pathname));
  return route && { template: route.template, rule: route.rule };
}

export interface PacerOptions {
  /** the deployment's RATE_LIMIT_MULTIPLIER when known in advance (default 1); responses correct it anyway */
  multiplier?: number;
  /** extra wait after a window slot frees, for clock and latency differences (default 250 ms) */
  marginMs?: number;
  now?: () => number;
}

export class Pacer {
  private readonly sent = new Map<string, number[]>();
  private readonly learned = new Map<string, number>();
  private readonly heldUntil = new Map<string, number>();
  private readonly multiplier: number;
  private readonly marginMs: number;
  private readonly now: () => number;
  private acquired = 0;

  constructor(options: PacerOptions = {}) {
    this.multiplier = options.multiplier ?? 1;
    this.marginMs = options.marginMs ?? 250;
    this.now = options.now ?? Date.now;
  }

  /**
   * The window a request counts in: token limits per (token, method, concrete path), partner limits
   * per (method, endpoint), per action for the batch goal assignment; unlimited endpoints share one
   * key per (method, path) so only the service's signals (X-Service-Rate-Delay) hold them.
   */
  keyFor(tokenId: string, method: string, pathname: string, action?: string): { key: string; limit: number | undefined } {
    const found = limitOf(method, pathname);
    if (!found) return { key: `none ${method} ${pathname}`, limit: undefined };
    const { rule, template } = found;
    const perAction = action !== undefined ? rule.actions?.[action] : undefined;
    const base = perAction ?? rule.limit;
    const key =
      rule.kind === "partner" ? `partner ${method} ${template}` : `token ${tokenId} ${method} ${pathname}${perAction !== undefined ? ` ${action}` : ""}`;
    return { key, limit: Math.max(1, Math.round(base * this.multiplier)) };
  }

  /** Waits until one more request fits the key's window, then counts it. */
  async acquire(key: string, tableLimit: number | undefined, signal?: AbortSignal | null): Promise<void> {
    for (;;) {
      const wait = this.waitMs(key, tableLimit);
      if (wait <= 0) {
        if (tableLimit !== undefined) this.timestamps(key).push(this.now());
        if (++this.acquired % 1000 === 0) this.sweep();
        return;
      }
      await sleep(wait, signal);
    }
  }

  /** ms until the key may send (0: now). */
  waitMs(key: string, tableLimit: number | undefined): number {
    const now = this.now();
    const held = (this.heldUntil.get(key) ?? 0) - now;
    if (tableLimit === undefined) return Math.max(0, held);
    const limit = this.learned.get(key) ?? tableLimit;
    const times = this.timestamps(key);
    while (times.length > 0 && times[0]! <= now - RATE_WINDOW_MS) times.shift();
    const full = times.length >= limit ? times[times.length - limit]! + RATE_WINDOW_MS + this.marginMs - now : 0;
    return Math.max(0, held, full);
  }

  /** Reads the service's rate-limit headers of a response to the key's request. */
  observe(key: string, response: Pick<Response, "status" | "headers">, retryAfterMs?: number): void {
    const h = response.headers;
    const limit = Number(h.get("RateLimit-Limit"));
    if (Number.isInteger(limit) && limit > 0) this.learned.set(key, limit);
    const now = this.now();
    let until = 0;
    if (h.get("RateLimit-Remaining") === "0") {
      const reset = Number(h.get("RateLimit-Reset"));
      if (Number.isFinite(reset) && reset > 0) until = now + reset * 1000 + this.marginMs;
    }
    if (response.status === 429 && retryAfterMs !== undefined) until = Math.max(until, now + retryAfterMs);
    const delay = Number(h.get("X-Service-Rate-Delay"));
    if (Number.isFinite(delay) && delay > 0) until = Math.max(until, now + delay);
    if (until > (this.heldUntil.get(key) ?? 0)) this.heldUntil.set(key, until);
  }

  /** Forgets keys whose window and hold have passed (a long-lived client touches many paths). */
  private sweep(): void {
    const now = this.now();
    for (const [key, times] of this.sent) {
      if ((times.at(-1) ?? 0) > now - RATE_WINDOW_MS) continue;
      this.sent.delete(key);
      this.learned.delete(key); // learned again from the next response
    }
    for (const [key, until] of this.heldUntil) if (until <= now) this.heldUntil.delete(key);
  }

  private timestamps(key: string): number[] {
    let times = this.sent.get(key);
    if (!times) {
      times = [];
      this.sent.set(key, times);
    }
    return times;
  }
}

/** Resolves after ms, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
