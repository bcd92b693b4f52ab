import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { WindowState } from "../rate-limits/table";

/** Limits for one call: the Worker passes the configured ones, tests pass small ones. */
export interface IpTake {
  /** caller's clock, ms since the epoch */
  now: number;
  /** requests per window admitted without delay (also the sustained rate) */
  limit: number;
  windowMs: number;
  /** how many requests may wait beyond the limit before the gate refuses */
  queueSize: number;
}

export type IpDecision =
  | ({ action: "allow" } & WindowState)
  | ({ action: "delay"; delayMs: number } & WindowState)
  | ({ action: "refuse"; retryAfterMs: number } & WindowState);

const EPSILON = 1e-6;

/**
 * One object per (client IP, URI path): the IP-based limit of spec 8.1.1 for unauthenticated
 * requests (the token endpoint) and requests that failed authentication.
 *
 * A leaky bucket in its "virtual scheduling" form (GCRA), as nginx's limit_req with a burst:
 * the interval is T = windowMs / limit; a burst of `limit` requests passes at once, after which
 * requests are spaced T apart. A request beyond the limit is queued: it is told to wait until its
 * slot (`delay`, at most queueSize × T). When `queueSize` requests already wait, it is refused and
 * told when a queue place frees (`retryAfterMs`). The whole state is one number (the theoretical
 * arrival time); an alarm deletes it once it lies in the past.
 */
export class IpGate extends DurableObject<Env> {
  async take({ now, limit, windowMs, queueSize }: IpTake): Promise<IpDecision> {
    const interval = windowMs / limit;
    const tat = Math.max(this.ctx.storage.kv.get<number>("tat") ?? now, now);
    const excess = tat - now - (limit - 1) * interval;
    if (excess > queueSize * interval + EPSILON) {
      const retryAfterMs = Math.ceil(excess - queueSize * interval);
      return { action: "refuse", retryAfterMs, limit, remaining: 0, resetMs: retryAfterMs };
    }
    const next = tat + interval;
    this.ctx.storage.kv.put("tat", next);
    if (!this.ctx.storage.kv.get<boolean>("armed")) {
      this.ctx.storage.kv.put("armed", true);
      await this.ctx.storage.setAlarm(Date.now() + (next - now) + 1000);
    }
    const backlog = next - now;
    const remaining = Math.max(0, Math.floor((limit * interval - backlog) / interval + EPSILON));
    const resetMs = Math.ceil(backlog - (limit - remaining - 1) * interval);
    if (excess <= EPSILON) return { action: "allow", limit, remaining, resetMs };
    return { action: "delay", delayMs: Math.ceil(excess), limit, remaining, resetMs };
  }

  override async alarm(): Promise<void> {
    const tat = this.ctx.storage.kv.get<number>("tat");
    if (tat !== undefined && tat > Date.now()) {
      await this.ctx.storage.setAlarm(tat + 1000);
      return;
    }
    await this.ctx.storage.deleteAll();
  }
}
