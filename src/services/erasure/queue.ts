import type { Env } from "../../env";

/**
 * Hands an erasure to its queue. A failed send is logged, not thrown: the erasure is recorded as
 * pending, and the scheduled handler re-sends pending erasures that made no progress for a while
 * (`resumeStalledErasures`), so nothing requested is lost.
 */
export async function enqueueErasure(env: Env, erasureId: string, delaySeconds = 0): Promise<void> {
  try {
    await env.ERASURES.send({ erasure_id: erasureId }, delaySeconds ? { delaySeconds } : undefined);
  } catch (error) {
    console.error(JSON.stringify({ erasure_id: erasureId, enqueue: "failed; the scheduled handler resumes it", error: String(error) }));
  }
}
