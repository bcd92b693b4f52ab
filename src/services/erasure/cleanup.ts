import { and, eq, notInArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type ErasureRow, erasureTargets, learningInstances, registrations } from "../../db/schema";
import type { Env } from "../../env";
import { addProgress, countedDelete, sumCounts } from "./ledger";

const REPUBLISH_AT_ONCE = 25;
/** Target registrations per batch of per-registration range deletes (two statements each). */
const TARGETS_PER_BATCH = 50;

/**
 * 4. The account-level projections (account_projections, read by predicted score) the targets
 * contributed to. An account erasure deletes the account's rows. An instance erasure keeps the
 * accounts, so for each of its accounts the row of the instance's graph is deleted and the
 * account's other registrations on that graph publish a full snapshot again: the row comes back
 * without the erased registrations (their beliefs and the modules they answered). Done whole each
 * time, so a crash between the delete and the republishing is repaired by running it again.
 */
export async function removeProjections(env: Env, db: Db, erasure: ErasureRow): Promise<boolean> {
  const d1 = env.DB;
  if (erasure.subjectType === "account") {
    await d1.batch(countedDelete(d1, erasure.id, "account_projections", "account_projections", "account_id = ?", erasure.subjectId));
    return true;
  }
  const instance = await db.select({ graphUuid: learningInstances.graphUuid }).from(learningInstances).where(eq(learningInstances.id, erasure.subjectId)).get();
  const targets = await db
    .select({ registrationId: erasureTargets.registrationId, accountId: erasureTargets.accountId })
    .from(erasureTargets)
    .where(eq(erasureTargets.erasureId, erasure.id))
    .all();
  const accountIds = [...new Set(targets.map((t) => t.accountId))];
  if (!instance?.graphUuid || accountIds.length === 0) return true;
  await d1.batch(
    countedDelete(
      d1,
      erasure.id,
      "account_projections",
      "account_projections",
      "graph_id = ? AND account_id IN (SELECT value FROM json_each(?))",
      instance.graphUuid,
      JSON.stringify(accountIds),
    ),
  );
  const others = await db
    .select({ id: registrations.id })
    .from(registrations)
    .innerJoin(learningInstances, eq(learningInstances.id, registrations.learningInstanceId))
    .where(
      and(
        sql`${registrations.accountId} IN (SELECT value FROM json_each(${JSON.stringify(accountIds)}))`,
        eq(learningInstances.graphUuid, instance.graphUuid),
        notInArray(registrations.id, db.select({ id: erasureTargets.registrationId }).from(erasureTargets).where(eq(erasureTargets.erasureId, erasure.id))),
      ),
    )
    .all();
  for (let i = 0; i < others.length; i += REPUBLISH_AT_ONCE) {
    await Promise.all(others.slice(i, i + REPUBLISH_AT_ONCE).map((r) => env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(r.id)).republishProjection()));
  }
  return true;
}

/**
 * 5. Every D1 row that names the targets (and the account), counted and deleted, then the erasure
 * marked complete with its receipt, the targets' list (the last rows naming them) deleted and the
 * data-request records closed: the last batch is one transaction, so the receipt says `complete`
 * only once everything is gone. The tombstones stay: the account row with its external_user_id's
 * digest, the instance row without its name and dates.
 */
export async function finishErasure(env: Env, db: Db, erasure: ErasureRow): Promise<boolean> {
  const d1 = env.DB;
  const id = erasure.id;
  const targets = await db
    .select({ registrationId: erasureTargets.registrationId, removed: erasureTargets.removed })
    .from(erasureTargets)
    .where(eq(erasureTargets.erasureId, id))
    .all();
  // The model-updates consumer's marks are keyed `<registration id>:<n>`: a range of the primary key per target.
  for (let i = 0; i < targets.length; i += TARGETS_PER_BATCH) {
    const statements = targets
      .slice(i, i + TARGETS_PER_BATCH)
      .flatMap((t) =>
        countedDelete(
          d1,
          id,
          "applied_model_updates",
          "applied_model_updates",
          "message_id > ? AND message_id < ?",
          `${t.registrationId}:`,
          `${t.registrationId};`,
        ),
      );
    if (statements.length) await d1.batch(statements);
  }
  const ofTargets = "(SELECT registration_id FROM erasure_targets WHERE erasure_id = ?)";
  const account = erasure.subjectType === "account" ? erasure.subjectId : undefined;
  const instance = erasure.subjectType === "learning_instance" ? erasure.subjectId : undefined;
  const now = Date.now();
  await d1.batch([
    ...countedDelete(d1, id, "goal_assignments", "goal_assignments", `registration_id IN ${ofTargets}`, id),
    // the partner-wide claims of the statement ids the targets received over xAPI (docs/xapi.md)
    ...countedDelete(d1, id, "xapi_statements", "xapi_statements", `registration_id IN ${ofTargets}`, id),
    ...countedDelete(
      d1,
      id,
      "dead_letters",
      "dead_letters",
      "EXISTS (SELECT 1 FROM erasure_targets t WHERE t.erasure_id = ? AND instr(dead_letters.body, t.registration_id) > 0)",
      id,
    ),
    ...(account
      ? [
          ...countedDelete(d1, id, "dead_letters", "dead_letters", "instr(body, ?) > 0", account),
          ...countedDelete(d1, id, "refresh_tokens", "refresh_tokens", "account_id = ?", account),
          ...countedDelete(d1, id, "access_tokens", "access_tokens", "account_id = ?", account),
          ...countedDelete(d1, id, "account_projections", "account_projections", "account_id = ?", account),
        ]
      : []),
    ...(instance
      ? [
          ...countedDelete(d1, id, "goal_assignments", "goal_assignments", "goal_id IN (SELECT id FROM goals WHERE learning_instance_id = ?)", instance),
          ...countedDelete(d1, id, "goals", "goals", "learning_instance_id = ?", instance),
          d1.prepare("UPDATE learning_instances SET name = '', start_date = NULL, end_date = NULL WHERE id = ?").bind(instance),
        ]
      : []),
    ...countedDelete(d1, id, "registrations", "registrations", `id IN ${ofTargets}`, id),
    // what the targets' Durable Objects held, as each reported it
    addProgress(d1, id, { registration_objects: targets.length, ...sumCounts(targets.map((t) => t.removed)) }, now),
    d1.prepare("DELETE FROM erasure_targets WHERE erasure_id = ?").bind(id),
    d1
      .prepare("UPDATE erasures SET status = 'complete', removed = progress, completed_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'")
      .bind(now, now, id),
    d1.prepare("UPDATE data_requests SET outcome = 'complete', completed_at = ? WHERE erasure_id = ?").bind(now, id),
  ]);
  return true;
}
