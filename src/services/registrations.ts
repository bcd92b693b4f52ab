import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { preparedPerDb } from "../db/prepared";
import { isRefusal } from "../db/refusals";
import { type AccountRow, graphs, type LearningInstanceRow, learningInstances, type RegistrationRow, registrations } from "../db/schema";
import type { RegistrationType } from "../domain/vocabulary";
import type { Env } from "../env";
import { notFound, unprocessable } from "../errors";
import { INSTANCE_REGISTRATIONS_MAX } from "../schemas/limits";
import type { RegistrationView } from "../schemas/registrations";

export function registrationView(row: RegistrationRow): RegistrationView {
  return { id: row.id, account_id: row.accountId, learning_instance_id: row.learningInstanceId, type: row.type };
}

export async function hasLiveRegistration(db: Db, accountId: string, learningInstanceId: string, type?: RegistrationType): Promise<boolean> {
  const filters = [eq(registrations.accountId, accountId), eq(registrations.learningInstanceId, learningInstanceId), isNull(registrations.deletedAt)];
  if (type) filters.push(eq(registrations.type, type));
  const row = await db
    .select({ id: registrations.id })
    .from(registrations)
    .where(and(...filters))
    .get();
  return row !== undefined;
}

export async function createRegistration(
  db: Db,
  account: AccountRow | undefined,
  instance: LearningInstanceRow,
  type: RegistrationType,
): Promise<RegistrationRow> {
  if (!account || account.partnerId !== instance.partnerId) {
    throw unprocessable("account_id names no account of this partner.", [{ path: "body.account_id", message: "unknown account" }]);
  }
  if (account.disabledAt !== null) {
    throw unprocessable("The account is disabled and cannot be registered.", [{ path: "body.account_id", message: "account disabled" }]);
  }
  const row: RegistrationRow = {
    id: crypto.randomUUID(),
    partnerId: instance.partnerId,
    accountId: account.id,
    learningInstanceId: instance.id,
    type,
    createdAt: Date.now(),
    deletedAt: null,
  };
  let inserted: { id: string }[];
  try {
    inserted = await db.insert(registrations).values(row).onConflictDoNothing().returning({ id: registrations.id });
  } catch (error) {
    // The instance was deleted after the caller read it (migration 0006's trigger refused the row).
    if (isRefusal(error, "learning_instance_not_live")) throw notFound("Learning instance");
    // migration 0011's trigger: the instance holds INSTANCE_REGISTRATIONS_MAX live registrations
    if (isRefusal(error, "learning_instance_full")) {
      throw unprocessable(`A learning instance holds at most ${INSTANCE_REGISTRATIONS_MAX} registrations; this one is full.`, [
        { path: "body.learning_instance_id", message: `at most ${INSTANCE_REGISTRATIONS_MAX} registrations per learning instance` },
      ]);
    }
    throw error;
  }
  if (inserted.length === 0) {
    throw unprocessable("The account is already registered in this learning instance.", [{ path: "body.account_id", message: "already registered" }]);
  }
  return row;
}

export async function findRegistration(db: Db, id: string): Promise<RegistrationRow | undefined> {
  return db
    .select()
    .from(registrations)
    .where(and(eq(registrations.id, id), isNull(registrations.deletedAt)))
    .get();
}

export async function requireRegistration(db: Db, id: string): Promise<RegistrationRow> {
  const row = await findRegistration(db, id);
  if (!row) throw notFound("Registration");
  return row;
}

export async function deleteRegistration(db: Db, id: string): Promise<void> {
  await db.update(registrations).set({ deletedAt: Date.now() }).where(eq(registrations.id, id));
}

export interface RegistrationContext {
  registration: RegistrationRow;
  graphUuid: string;
  graphVersion: number;
}

/** What a registration context is read from (`contextOf`): the registration, its instance's graph and the graph's current version. */
export const CONTEXT_COLUMNS = { registration: registrations, graphUuid: learningInstances.graphUuid, graphVersion: graphs.version };

/** How: the live registration named by placeholder `id`, its live learning instance (inner join), the instance's graph (left join). */
export const CONTEXT_JOINS = {
  instance: and(eq(learningInstances.id, registrations.learningInstanceId), isNull(learningInstances.deletedAt)),
  graph: eq(graphs.id, learningInstances.graphUuid),
  live: and(eq(registrations.id, sql.placeholder("id")), isNull(registrations.deletedAt)),
};

/**
 * The query of `registrationContext`, prepared once (the SQL is built once, not per event: building
 * it cost about as much CPU as running it).
 */
const contextQuery = preparedPerDb((db) =>
  db
    .select(CONTEXT_COLUMNS)
    .from(registrations)
    .innerJoin(learningInstances, CONTEXT_JOINS.instance)
    .leftJoin(graphs, CONTEXT_JOINS.graph)
    .where(CONTEXT_JOINS.live)
    .prepare(),
);

/** The registration with its instance's graph and current graph version, in one query. */
export async function registrationContext(db: Db, registrationId: string): Promise<RegistrationContext> {
  return contextOf(await contextQuery(db).get({ id: registrationId }));
}

/** The context of a row read with CONTEXT_COLUMNS and CONTEXT_JOINS (404 without a row, 422 without a graph). */
export function contextOf(row: { registration: RegistrationRow; graphUuid: string | null; graphVersion: number | null } | undefined): RegistrationContext {
  if (!row) throw notFound("Registration");
  if (!row.graphUuid || row.graphVersion === null) {
    throw unprocessable("The registration's learning instance has no knowledge graph; events cannot be interpreted.");
  }
  return { registration: row.registration, graphUuid: row.graphUuid, graphVersion: row.graphVersion };
}

/** The registration's Durable Object (its event log and learner state): one per registration id, named by it. */
export function registrationObject(env: Env, registrationId: string) {
  return env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(registrationId));
}
