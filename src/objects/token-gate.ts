import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export type AdmitResult = { ok: true } | { ok: false; reason: "revoked" };

/**
 * One object per access token (named by the token id). Every authenticated request calls `admit`
 * once: it refuses revoked tokens and (with the rate-limit issue) enforces the token's per-endpoint
 * windows. An alarm at token expiry deletes everything, so idle gates hold nothing.
 */
export class TokenGate extends DurableObject<Env> {
  async admit(expiresAtMs: number): Promise<AdmitResult> {
    if (this.ctx.storage.kv.get<boolean>("revoked")) return { ok: false, reason: "revoked" };
    await this.scheduleCleanup(expiresAtMs);
    return { ok: true };
  }

  async revoke(expiresAtMs: number): Promise<void> {
    this.ctx.storage.kv.put("revoked", true);
    await this.scheduleCleanup(expiresAtMs);
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private async scheduleCleanup(expiresAtMs: number): Promise<void> {
    if (this.ctx.storage.kv.get<number>("cleanup_at") === expiresAtMs) return;
    this.ctx.storage.kv.put("cleanup_at", expiresAtMs);
    await this.ctx.storage.setAlarm(expiresAtMs);
  }
}
