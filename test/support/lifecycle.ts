import { vi } from "vitest";
import { type ApiResponse, freshAdminToken, type Json, type Partner, rawCall } from "./api";
import { api } from "./typed-api";

/** POST .../erasure as the partner admin (a fresh token: the receipt polls stay inside every window). */
export async function requestErasure(p: Partner, path: string): Promise<ApiResponse> {
  return rawCall("POST", path, { token: await freshAdminToken(p) });
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
