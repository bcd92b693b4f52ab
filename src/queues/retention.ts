import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { partners, registrations, retentionPasses } from "../db/schema";
import type { Env } from "../env";

/** A new pass over a partner's registrations starts this long after the previous one started. */
export const RETENTION_PASS_INTERVAL_MS = 3_600_000;
/** Registrations visited per scheduled run, over all partners (each visit is one Durable Object call). */
const VISITS_PER_RUN = 500;
const VISITS_AT_ONCE = 25;
const DAY_MS = 86_400_000;

/**
 * The retention job (decisions.md "Student data lifecycle", docs/privacy.md "Retention"), run by the
 * scheduled handler every minute. For each partner with `event_retention_days`, a pass visits every
 * registration (deleted ones too: their logs are kept) in rowid order and asks its Durable Object to
 * remove the events received before the horizon (src/objects/registration/retention.ts); the object
 * keeps the learner state they led to. A pass is resumable: its cursor (a rowid, which names no one)
 * is stored after each chunk. Each run visits at most VISITS_PER_RUN registrations, so a pass over a
 * large partner spans several runs; a new pass starts an hour after the previous one started.
 * Returns the number of events removed.
 */
export async function runRetention(env: Env, db: Db, nowMs: number): Promise<number> {
  const configured = await db
    .select({ id: partners.id, days: partners.eventRetentionDays, pass: retentionPasses })
    .from(partners)
    .leftJoin(retentionPasses, eq(retentionPasses.partnerId, partners.id))
    .where(isNotNull(partners.eventRetentionDays))
    .all();
  let budget = VISITS_PER_RUN;
  let removed = 0;
  for (const partner of configured) {
    if (budget <= 0) break;
    let cursor = partner.pass?.cursor ?? null;
    if (cursor === null) {
      if (partner.pass && nowMs - partner.pass.startedAt < RETENTION_PASS_INTERVAL_MS) continue;
      cursor = 0;
      await db
        .insert(retentionPasses)
        .values({ partnerId: partner.id, startedAt: nowMs, cursor, removedEvents: 0 })
        .onConflictDoUpdate({ target: retentionPasses.partnerId, set: { startedAt: nowMs, cursor } });
    }
    const cutoffMs = nowMs - (partner.days ?? 0) * DAY_MS;
    const visit = await visitSome(env, db, partner.id, cursor, cutoffMs, budget);
    budget -= visit.visited;
    removed += visit.removed;
  }
  return removed;
}

/** Visits up to `max` registrations of the partner after `cursor`; stores the new cursor (null once the pass is done). */
async function visitSome(env: Env, db: Db, partnerId: string, cursor: number, cutoffMs: number, max: number) {
  const rows = await db
    .select({ rowid: sql<number>`${registrations}.rowid`, id: registrations.id })
    .from(registrations)
    .where(and(eq(registrations.partnerId, partnerId), gt(sql`${registrations}.rowid`, cursor)))
    .orderBy(asc(sql`${registrations}.rowid`))
    .limit(max)
    .all();
  let removed = 0;
  for (let i = 0; i < rows.length; i += VISITS_AT_ONCE) {
    const counts = await Promise.all(
      rows.slice(i, i + VISITS_AT_ONCE).map((r) => env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(r.id)).applyRetention(cutoffMs)),
    );
    removed += counts.reduce((a, b) => a + b, 0);
  }
  const next = rows.length < max ? null : (rows.at(-1)?.rowid ?? null);
  await db
    .update(retentionPasses)
    .set({ cursor: next, removedEvents: sql`${retentionPasses.removedEvents} + ${removed}` })
    .where(eq(retentionPasses.partnerId, partnerId));
  return { visited: rows.length, removed };
}
