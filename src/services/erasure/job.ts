import { and, eq, isNull, sql } from "drizzle-orm";
import { IN_BOUND_LIST, jsonEach } from "../../db/bound-list";
import type { Db } from "../../db/client";
import { accessTokens, ERASURE_STEPS, type ErasureRow, type ErasureStep, erasedRegistrations, erasures, erasureTargets } from "../../db/schema";
import type { Env } from "../../env";
import { tokenGate } from "../accounts";
import { registrationObject } from "../registrations";
import { finishErasure, removeProjections } from "./cleanup";
import { registrationDigest } from "./fence";
import { addProgress } from "./ledger";

/**
 * The erasure job (docs/privacy.md "Erasure"): driven by the
 * erasure queue (src/queues/erasures.ts), never on a request's path. It runs the erasure's steps in
 * order, each in bounded chunks, and records the next step in D1, so a job that dies half way is
 * resumed where it stopped (the queue redelivers, the scheduled handler re-sends stalled ones). Every
 * step is idempotent: a chunk done twice removes nothing twice and counts nothing twice.
 *
 * 1. digests:     a digest of every target registration (consumers drop their queued messages from now on)
 * 2. tokens:      the account's token gates: revoked, windows deleted; their rows deleted
 * 3. objects:     each target registration's Durable Object storage deleted (a tombstone with counts stays)
 * 4. projections: the account's projections removed (an instance erasure: the account's other
 *                 registrations on the graph republish theirs, without the erased ones)
 * 5. cleanup:     the D1 rows naming the targets, then `complete` with the receipt, in one transaction
 */
export type Advance = "complete" | "more" | "unknown";

/** How long one queue delivery works before it hands the rest to the next message. */
const BUDGET_MS = 20_000;
const OBJECTS_AT_ONCE = 25;
const TOKENS_AT_ONCE = 50;

type Step = (env: Env, db: Db, erasure: ErasureRow) => Promise<boolean>;

const STEPS: Record<ErasureStep, Step> = { digests, tokens, objects, projections: removeProjections, cleanup: finishErasure };

/**
 * Advances the erasure as far as the budget allows, at least one chunk whatever the budget:
 * "complete", "more" (send another message) or "unknown" (no such erasure).
 */
export async function advanceErasure(env: Env, db: Db, erasureId: string, budgetMs = BUDGET_MS): Promise<Advance> {
  const started = Date.now();
  for (let first = true; ; first = false) {
    const erasure = await db.select().from(erasures).where(eq(erasures.id, erasureId)).get();
    if (!erasure) return "unknown";
    if (erasure.status === "complete") return "complete";
    if (!first && Date.now() - started > budgetMs) return "more";
    const finished = await STEPS[erasure.step](env, db, erasure);
    if (finished && erasure.step !== "cleanup") {
      const next = ERASURE_STEPS[ERASURE_STEPS.indexOf(erasure.step) + 1] as ErasureStep;
      await db
        .update(erasures)
        .set({ step: next, updatedAt: Date.now() })
        .where(and(eq(erasures.id, erasure.id), eq(erasures.step, erasure.step)));
    }
  }
}

/** 1. The targets' digests, so queue consumers drop (and cannot write) anything naming them before anything is deleted. */
async function digests(_env: Env, db: Db, erasure: ErasureRow): Promise<boolean> {
  const targets = await db.select({ id: erasureTargets.registrationId }).from(erasureTargets).where(eq(erasureTargets.erasureId, erasure.id)).all();
  const all = await Promise.all(targets.map((t) => registrationDigest(t.id)));
  for (let i = 0; i < all.length; i += 500) {
    await db.run(sql`INSERT OR IGNORE INTO ${erasedRegistrations} (digest) SELECT value FROM ${jsonEach(all.slice(i, i + 500))}`);
  }
  return true;
}

/** 2. The erased account's tokens, a chunk at a time: each live one revoked and its windows deleted in its gate, then the rows. */
async function tokens(env: Env, db: Db, erasure: ErasureRow): Promise<boolean> {
  if (erasure.subjectType !== "account") return true;
  const rows = await db
    .select({ jti: accessTokens.jti, expiresAt: accessTokens.expiresAt })
    .from(accessTokens)
    .where(eq(accessTokens.accountId, erasure.subjectId))
    .limit(TOKENS_AT_ONCE)
    .all();
  if (rows.length === 0) return true;
  const now = Date.now();
  // An expired token's gate deleted itself at the expiry.
  const live = rows.filter((t) => t.expiresAt > now);
  const windows = await Promise.all(live.map((t) => tokenGate(env, t.jti).erase(t.expiresAt)));
  await env.DB.batch([
    addProgress(env.DB, erasure.id, { access_tokens: rows.length, token_gates: live.length, rate_limit_windows: windows.reduce((a, b) => a + b, 0) }, now),
    env.DB.prepare(`DELETE FROM access_tokens WHERE jti ${IN_BOUND_LIST}`).bind(JSON.stringify(rows.map((t) => t.jti))),
  ]);
  return false;
}

/** 3. The target registrations' Durable Objects, a chunk at a time: all storage deleted; each reports what it held. */
async function objects(env: Env, db: Db, erasure: ErasureRow): Promise<boolean> {
  const pending = await db
    .select({ id: erasureTargets.registrationId })
    .from(erasureTargets)
    .where(and(eq(erasureTargets.erasureId, erasure.id), isNull(erasureTargets.removed)))
    .limit(OBJECTS_AT_ONCE)
    .all();
  if (pending.length === 0) return true;
  const counts = await Promise.all(pending.map((t) => registrationObject(env, t.id).erase()));
  await db.batch([
    db.update(erasures).set({ updatedAt: Date.now() }).where(eq(erasures.id, erasure.id)),
    ...pending.map((t, i) =>
      db
        .update(erasureTargets)
        .set({ removed: counts[i] ?? {} })
        .where(and(eq(erasureTargets.erasureId, erasure.id), eq(erasureTargets.registrationId, t.id))),
    ),
  ]);
  return false;
}
