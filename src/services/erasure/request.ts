import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  type AccountRow,
  accessTokens,
  accounts,
  dataRequests,
  type ErasureRow,
  erasures,
  erasureTargets,
  goals,
  type LearningInstanceRow,
  learningInstances,
  registrations,
} from "../../db/schema";
import type { Env } from "../../env";
import { erasedExternalUserId, tokenGate } from "../accounts";
import { dataRequestRow } from "../data-requests";
import { enqueueErasure } from "./queue";

/** Who asked, for the record of data requests. */
export interface Requester {
  accountId: string;
  requestId?: string;
}

export type Subject = { type: "account"; row: AccountRow } | { type: "learning_instance"; row: LearningInstanceRow };

/** The erasure of a subject, if one was requested. */
export async function erasureOfSubject(db: Db, type: Subject["type"], subjectId: string): Promise<ErasureRow | undefined> {
  return db
    .select()
    .from(erasures)
    .where(and(eq(erasures.subjectType, type), eq(erasures.subjectId, subjectId)))
    .get();
}

/** An account of any partner, erased or not (an erasure is asked for and repeated on erased accounts too). */
export async function accountForErasure(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.select().from(accounts).where(eq(accounts.id, id)).get();
}

/** A learning instance of any partner, deleted or erased too (a deleted instance's data is still there to erase). */
export async function instanceForErasure(db: Db, id: string): Promise<LearningInstanceRow | undefined> {
  return db.select().from(learningInstances).where(eq(learningInstances.id, id)).get();
}

/**
 * Requests the erasure of an account or a learning instance (docs/privacy.md
 * "Erasure"). One D1 batch (a transaction) hides the subject at once and records the work: the
 * account becomes a tombstone (external_user_id replaced by its digest, disabled, `erased_at`) or
 * the instance is marked deleted and erased; their registrations are marked deleted (404 from now
 * on, gone from class pages) and listed as the erasure's targets; the erasure and its data-request
 * record are written. A concurrent duplicate request fails on the erasure's unique subject and gets
 * the first one. The work itself is done by the erasure queue's consumer (./job.ts), not here.
 * An account's access tokens are revoked at once (as a disable does).
 */
export async function requestErasure(
  env: Env,
  db: Db,
  subject: Subject,
  requester: Requester,
  nowMs = Date.now(),
): Promise<{ erasure: ErasureRow; created: boolean }> {
  const existing = await erasureOfSubject(db, subject.type, subject.row.id);
  if (existing) return { erasure: existing, created: false };
  const erasure: ErasureRow = {
    id: crypto.randomUUID(),
    partnerId: subject.row.partnerId,
    subjectType: subject.type,
    subjectId: subject.row.id,
    status: "pending",
    step: "digests",
    requestedBy: requester.accountId,
    requestedAt: nowMs,
    completedAt: null,
    progress: {},
    removed: null,
    updatedAt: nowMs,
  };
  const record = dataRequestRow(
    {
      partnerId: erasure.partnerId,
      kind: "erasure",
      subjectType: subject.type,
      subjectId: subject.row.id,
      requestedBy: requester.accountId,
      requestId: requester.requestId ?? null,
      erasureId: erasure.id,
    },
    nowMs,
  );
  const ofSubject = subject.type === "account" ? eq(registrations.accountId, subject.row.id) : eq(registrations.learningInstanceId, subject.row.id);
  const hide =
    subject.type === "account"
      ? [
          db
            .update(accounts)
            .set({
              erasedAt: nowMs,
              disabledAt: subject.row.disabledAt ?? nowMs,
              externalUserId: await erasedExternalUserId(subject.row.partnerId, subject.row.externalUserId),
              entitlements: null,
            })
            .where(eq(accounts.id, subject.row.id)),
        ]
      : [
          db
            .update(learningInstances)
            .set({ erasedAt: nowMs, deletedAt: subject.row.deletedAt ?? nowMs })
            .where(eq(learningInstances.id, subject.row.id)),
          db
            .update(goals)
            .set({ deletedAt: nowMs })
            .where(and(eq(goals.learningInstanceId, subject.row.id), isNull(goals.deletedAt))),
        ];
  try {
    await db.batch([
      db.insert(erasures).values(erasure),
      ...hide,
      db.insert(erasureTargets).select(
        db
          .select({
            erasureId: sql<string>`${erasure.id}`.as("erasure_id"),
            registrationId: registrations.id,
            accountId: registrations.accountId,
            learningInstanceId: registrations.learningInstanceId,
            removed: sql<null>`NULL`.as("removed"),
          })
          .from(registrations)
          .where(ofSubject),
      ),
      db
        .update(registrations)
        .set({ deletedAt: nowMs })
        .where(and(ofSubject, isNull(registrations.deletedAt))),
      db.insert(dataRequests).values(record),
    ]);
  } catch (error) {
    // A concurrent request for the same subject committed first: its erasure is the one.
    const raced = await erasureOfSubject(db, subject.type, subject.row.id);
    if (raced) return { erasure: raced, created: false };
    throw error;
  }
  if (subject.type === "account") await revokeLiveTokens(env, db, subject.row.id, nowMs);
  await enqueueErasure(env, erasure.id);
  return { erasure, created: true };
}

/**
 * An erased account's tokens stop working at once (revoked in their gates, as a disable does); the
 * job then deletes their windows and rows. A gate that cannot be reached now is revoked by the job.
 */
async function revokeLiveTokens(env: Env, db: Db, accountId: string, nowMs: number): Promise<void> {
  const live = await db
    .select({ jti: accessTokens.jti, expiresAt: accessTokens.expiresAt })
    .from(accessTokens)
    .where(and(eq(accessTokens.accountId, accountId), gt(accessTokens.expiresAt, nowMs)))
    .all();
  const results = await Promise.allSettled(live.map((t) => tokenGate(env, t.jti).revoke(t.expiresAt)));
  const failed = results.filter((r) => r.status === "rejected").length;
  if (failed) console.error(JSON.stringify({ erasure: "token revocation deferred to the erasure job", account_id: accountId, failed }));
}
