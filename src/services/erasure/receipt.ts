import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type ErasureRow, erasures } from "../../db/schema";
import { ERASURE_STORES, type ErasureReceiptSchema } from "../../schemas/data-lifecycle";

export async function findErasure(db: Db, id: string): Promise<ErasureRow | undefined> {
  return db.select().from(erasures).where(eq(erasures.id, id)).get();
}

/**
 * A step counts a store only when it removes from it (the tokens step adds nothing for an account
 * without tokens), so a complete receipt fills in the others: every store is named, 0 where nothing went.
 */
const NOTHING_REMOVED: Record<string, number> = Object.fromEntries(ERASURE_STORES.map((store) => [store, 0]));

/** The receipt (docs/privacy.md "Erasure"): while pending, `removed` says what is gone so far. */
export function erasureReceipt(row: ErasureRow): z.infer<typeof ErasureReceiptSchema> {
  return {
    erasure_id: row.id,
    ...(row.subjectType === "account" ? { account_id: row.subjectId } : { learning_instance_id: row.subjectId }),
    status: row.status,
    requested_at: new Date(row.requestedAt).toISOString(),
    completed_at: row.completedAt === null ? null : new Date(row.completedAt).toISOString(),
    removed: row.removed ? { ...NOTHING_REMOVED, ...row.removed } : row.progress,
  };
}
