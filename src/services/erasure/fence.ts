import { sql } from "drizzle-orm";
import { inList } from "../../db/bound-list";
import type { Db } from "../../db/client";
import type { RawStatement } from "../../db/raw-statements";
import { erasedRegistrations } from "../../db/schema";
import { sha256Hex } from "../../lib/digest";

/**
 * Queue consumers and erased registrations (docs/privacy.md "Queues"). An erasure records a SHA-256
 * digest of each registration it removes (`erased_registrations`, kept for good: a digest names
 * nobody) before it deletes anything. A consumer's D1 write batch starts with `fenceOf`: when one of
 * the registrations the batch writes about is erased, that statement fails and with it the whole
 * batch (a transaction), so nothing naming an erased registration is ever written after its erasure
 * began, whatever the consumer read before. The consumer then drops the erased registrations'
 * messages (`isFenceRefusal`, `erasedAmong`) and applies the others.
 */
export const registrationDigest = (registrationId: string): Promise<string> => sha256Hex(`registration:${registrationId.toLowerCase()}`);

/**
 * The statement that fails its batch when one of the registrations is erased (it inserts NULL into a
 * NOT NULL column), in a one-element list to spread into the batch (a query is a thenable: an async
 * function returning it bare would run it).
 */
export async function fenceOf(db: Db, registrationIds: Iterable<string>) {
  return [db.run(sql.raw((await fenceStatement(registrationIds)).sql))] as const;
}

/** The same statement for a batch of raw statements (src/db/raw-statements.ts). */
export async function fenceStatement(registrationIds: Iterable<string>): Promise<RawStatement> {
  const digests = await Promise.all([...new Set(registrationIds)].map(registrationDigest));
  // Inlined, not bound: drizzle's D1 batch cannot bind parameters of a raw statement. Digests are hex.
  const list = digests.map((d) => `'${d.replace(/[^0-9a-f]/g, "")}'`).join(", ");
  return {
    sql: `INSERT INTO erasure_fence (refused) SELECT NULL WHERE EXISTS (SELECT 1 FROM erased_registrations WHERE digest IN (${list}))`,
    params: [],
  };
}

/** Whether a D1 batch failed on the fence (a registration it wrote about is erased). */
export function isFenceRefusal(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.message.includes("erasure_fence.refused")) return true;
  }
  return false;
}

/** The registrations of `registrationIds` that are erased (or being erased). */
export async function erasedAmong(db: Db, registrationIds: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(registrationIds)];
  const digests = await Promise.all(ids.map(registrationDigest));
  const rows = await db.select({ digest: erasedRegistrations.digest }).from(erasedRegistrations).where(inList(erasedRegistrations.digest, digests)).all();
  const erased = new Set(rows.map((r) => r.digest));
  return new Set(ids.filter((_, i) => erased.has(digests[i] as string)));
}

/** The registration a model-update message id (`<registration id>:<outbox row id>`) comes from. */
export const registrationOfMessageId = (id: string): string => id.slice(0, Math.max(0, id.lastIndexOf(":")));

/** The registration a queued message (model update or projection) names, if it names one. */
export function registrationOfMessage(body: unknown): string | undefined {
  const b = body as { registrationId?: unknown; id?: unknown } | null;
  if (typeof b?.registrationId === "string") return b.registrationId;
  if (typeof b?.id === "string" && b.id.includes(":")) return registrationOfMessageId(b.id);
  return undefined;
}
