import type { Env } from "../env";
import type { AdmitResult, LimitCheck } from "../objects/token-gate";
import type { WindowState } from "../rate-limits/table";
import { shardIndex, shardName } from "../rate-limits/token-shards";

/** The token a request is admitted for: its id, its expiry (ms) and its gate's shards (claim `gate_shards`). */
export interface GateToken {
  jti: string;
  expiresAtMs: number;
  shards: number;
}

/**
 * Asks the token's gate to admit one request (docs/rate-limits.md "Shards"). A token window lives in
 * the shard of its bucket, so a request counted in windows of one shard (every endpoint but an xAPI
 * request naming registrations whose windows fall on different shards) is one call to that shard; a
 * request with no token window (no limit, limits off, a partner limit) goes to the shard of its
 * concrete path.
 *
 * Windows on several shards are counted on each shard at once, all or none: if any shard refuses (or
 * fails), the counts already made on the others are released before answering. Until that release
 * the windows hold the refused request's count, so a request racing it on the same window may be
 * refused one round trip early; a window never admits more than its limit.
 */
export async function admitRequest(env: Env, token: GateToken, path: string, check: LimitCheck | undefined): Promise<AdmitResult> {
  const gate = (index: number) => env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(shardName(token.jti, index)));
  const admitOn = (index: number, part: LimitCheck | undefined) => gate(index).admit(token.expiresAtMs, part, { jti: token.jti, index });
  if (!check || check.kind === "partner") return admitOn(shardIndex(path, token.shards), check);

  const byShard = new Map<number, string[]>();
  for (const bucket of typeof check.bucket === "string" ? [check.bucket] : check.bucket) {
    const index = shardIndex(bucket, token.shards);
    byShard.set(index, [...(byShard.get(index) ?? []), bucket]);
  }
  const parts = [...byShard];
  if (parts.length === 1) return admitOn(parts[0]?.[0] ?? 0, check);

  const settled = await Promise.allSettled(parts.map(([index, buckets]) => admitOn(index, { ...check, bucket: buckets })));
  const answers = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  if (answers.length === parts.length && answers.every((a) => a.ok)) return { ok: true, window: tightest(answers.map((a) => a.window)) };
  // Not admitted everywhere: take back the counts of the shards that admitted it.
  await Promise.allSettled(
    parts.flatMap(([index, buckets], k) => {
      const s = settled[k];
      return s?.status === "fulfilled" && s.value.ok ? [gate(index).release(buckets, check.now)] : [];
    }),
  );
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  const refusals = answers.flatMap((a) => (a.ok ? [] : [a]));
  const revoked = refusals.find((a) => a.reason === "revoked");
  if (revoked) return revoked;
  const retryAfterMs = Math.max(...refusals.map((a) => (a.reason === "revoked" ? 0 : a.retryAfterMs)));
  return { ok: false, reason: "token-limited", retryAfterMs, window: { limit: check.limit, remaining: 0, resetMs: retryAfterMs } };
}

/** The most constrained of the windows a request was counted in (fewest requests left). */
function tightest(windows: (WindowState | undefined)[]): WindowState | undefined {
  let out: WindowState | undefined;
  for (const w of windows) if (w && (!out || w.remaining < out.remaining)) out = w;
  return out;
}
