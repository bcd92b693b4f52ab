import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type HitResult, SlidingWindowLog } from "../rate-limits/sliding-window";
import { RATE_WINDOW_MS } from "../rate-limits/table";

/**
 * One object per partner (named "partner:<partner id>"): the partner-wide sliding windows of
 * spec 8.1.3 (today only POST /accounts/metrics/predicted-score, 140/min across all tokens).
 * Called by the TokenGate, never by the Worker, so a request still costs one call from the Worker.
 * State is bounded by the last window's admitted requests; an alarm deletes it once idle.
 */
export class PartnerGate extends DurableObject<Env> {
  readonly #log = new SlidingWindowLog(this.ctx.storage.sql);

  async hit(bucket: string, limit: number, now: number): Promise<HitResult> {
    const result = this.#log.hit(bucket, limit, now);
    if (result.allowed && !this.ctx.storage.kv.get<boolean>("armed")) {
      this.ctx.storage.kv.put("armed", true);
      await this.ctx.storage.setAlarm(Date.now() + RATE_WINDOW_MS + 1000);
    }
    return result;
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    this.#log.prune(now);
    const latest = this.#log.latest();
    if (latest !== undefined) {
      await this.ctx.storage.setAlarm(Math.max(now, latest) + RATE_WINDOW_MS + 1000);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.#log.init();
  }
}
