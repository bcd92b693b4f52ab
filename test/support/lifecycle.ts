import { vi } from "vitest";
import { freshAdminToken, type Json, type Partner } from "./api";
import type { ApiResponse } from "./raw-call";
import { api } from "./typed-api";

// Erasures are requested as the partner admin with a fresh token: the receipt polls stay inside every window.

/** POST /v0/accounts/{account_id}/erasure */
export async function requestAccountErasure(p: Partner, accountId: string): Promise<ApiResponse> {
  return api("POST", "/v0/accounts/{account_id}/erasure", { token: await freshAdminToken(p), path: { account_id: accountId } });
}

/** POST /v0/learning-instances/{id}/erasure */
export async function requestInstanceErasure(p: Partner, liId: string): Promise<ApiResponse> {
  return api("POST", "/v0/learning-instances/{id}/erasure", { token: await freshAdminToken(p), path: { id: liId } });
}

export async function receipt(p: Partner, erasureId: string): Promise<ApiResponse> {
  return api("GET", "/v0/erasures/{erasure_id}", { token: await freshAdminToken(p), path: { erasure_id: erasureId } });
}

/** Waits until the erasure's receipt says complete (the erasure queue's consumer does the work); returns the receipt. */
export async function completedReceipt(p: Partner, erasureId: string, timeout = 30_000): Promise<Json> {
  let body: Json = {};
  await vi.waitFor(
    async () => {
      const res = await receipt(p, erasureId);
      body = res.body;
      if (res.status !== 200 || body.status !== "complete") throw new Error(`receipt: ${res.status} ${JSON.stringify(body)}`);
    },
    { timeout, interval: 200 },
  );
  return body;
}

/** A graded event body, `minutes` ago. */
export const graded = (moduleId: string, correct: boolean, minutes = 1) => ({
  module_id: moduleId,
  interaction_end_time: new Date(Date.now() - minutes * 60_000).toISOString(),
  is_correct: correct,
});
