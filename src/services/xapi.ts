import { and, eq, isNull } from "drizzle-orm";
import { inList, insertChunks } from "../db/bound-list";
import type { Db } from "../db/client";
import { accounts, graphs, learningInstances, type RegistrationRow, registrations, xapiStatements } from "../db/schema";
import type { Env } from "../env";
import { ApiError, badRequest, serviceUnavailable } from "../errors";
import { findModule } from "../graphs/runtime-graph";
import { loadRuntimeGraph } from "../reads/graph-versions";
import type { ErrorDetail } from "../schemas/common";
import { ingestEvents } from "./events";
import type { MappedStatement } from "./xapi-mapping";

/** A registration named by statements: what mapping and ingestion need of it. */
export interface StatementTarget {
  registration: RegistrationRow;
  externalUserId: string;
  graphUuid: string | null;
  graphVersion: number | null;
}

/** The live registrations among `ids` (of any partner: the caller checks), with their account and graph, in one query. */
export async function statementTargets(db: Db, ids: string[]): Promise<Map<string, StatementTarget>> {
  const found = new Map<string, StatementTarget>();
  if (ids.length === 0) return found;
  const rows = await db
    .select({ registration: registrations, externalUserId: accounts.externalUserId, graphUuid: learningInstances.graphUuid, graphVersion: graphs.version })
    .from(registrations)
    .innerJoin(learningInstances, and(eq(learningInstances.id, registrations.learningInstanceId), isNull(learningInstances.deletedAt)))
    .innerJoin(accounts, eq(accounts.id, registrations.accountId))
    .leftJoin(graphs, eq(graphs.id, learningInstances.graphUuid))
    .where(and(inList(registrations.id, ids), isNull(registrations.deletedAt)))
    .all();
  for (const row of rows) found.set(row.registration.id, row);
  return found;
}

/**
 * The statements whose object names no atom of their registration's graph, at the graph version
 * the events will be stored under (so the registration's object, which resolves them again at that
 * version, cannot refuse what passed here).
 */
export async function unknownModules(db: Db, statements: MappedStatement[], targets: Map<string, StatementTarget>): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  for (const s of statements) {
    const target = targets.get(s.registrationId);
    if (!target?.graphUuid || target.graphVersion === null) {
      details.push({ path: `${s.at}.context.registration`, message: "the registration's learning instance has no knowledge graph" });
      continue;
    }
    const graph = await loadRuntimeGraph(db, target.graphUuid, target.graphVersion);
    const module = graph ? findModule(graph, s.event.moduleId) : undefined;
    const atom = module !== undefined && graph?.graph.modules[module]?.atom === true;
    if (!atom) {
      const what = module === undefined ? "is not a module of the learning instance's graph" : "is a bundle; send statements on its atoms";
      details.push({ path: `${s.at}.object.id`, message: `'${s.event.moduleId}' ${what}` });
    }
  }
  return details;
}

/**
 * Claims the statement ids for the partner (partner-wide, for good): an id already claimed by a
 * different statement (another digest or registration) refuses the request with 409 and takes back
 * the claims this request made. Claims are made before the events are stored, so a stored statement
 * always has one; a claim whose events were never stored (the request failed) is completed by the
 * retry of the same statement.
 */
export async function claimStatements(db: Db, partnerId: string, statements: MappedStatement[], nowMs: number): Promise<void> {
  const rows = statements.map((s) => ({
    partnerId,
    statementId: s.id,
    registrationId: s.registrationId,
    fingerprint: s.event.statement?.fingerprint ?? "",
    createdAt: nowMs,
  }));
  // One D1 round trip: the inserts (5 parameters a row), then the claims as they stand, read in the
  // same transaction.
  const ids = rows.map((r) => r.statementId);
  const inserts = insertChunks(rows, 5).map((part) =>
    db.insert(xapiStatements).values(part).onConflictDoNothing().returning({ id: xapiStatements.statementId }),
  );
  const reads = [
    db
      .select({ id: xapiStatements.statementId, registrationId: xapiStatements.registrationId, fingerprint: xapiStatements.fingerprint })
      .from(xapiStatements)
      .where(and(eq(xapiStatements.partnerId, partnerId), inList(xapiStatements.statementId, ids))),
  ];
  let results: { id: string; registrationId?: string; fingerprint?: string }[][];
  try {
    results = (await db.batch([...inserts, ...reads] as unknown as Parameters<Db["batch"]>[0])) as unknown as typeof results;
  } catch (error) {
    // A registration whose erasure completed since the request read it (its row is gone: docs/privacy.md).
    if (!String(error).includes("FOREIGN KEY constraint failed")) throw error;
    const live = await statementTargets(db, [...new Set(statements.map((s) => s.registrationId))]);
    throw badRequest(
      "A statement names a registration that no longer exists (it was erased while the request ran); nothing was stored.",
      statements.filter((s) => !live.has(s.registrationId)).map((s) => ({ path: `${s.at}.context.registration`, message: "no such registration" })),
    );
  }
  const inserted = results
    .slice(0, inserts.length)
    .flat()
    .map((r) => r.id);
  const existing = new Map(
    results
      .slice(inserts.length)
      .flat()
      .map((r) => [r.id, r]),
  );
  const conflicts = statements
    .filter((s, i) => {
      const claim = existing.get(s.id);
      return claim && (claim.registrationId !== s.registrationId || claim.fingerprint !== rows[i]?.fingerprint);
    })
    .map((s) => ({ path: `${s.at}.id`, message: `statement ${s.id} was already stored with different content` }));
  if (conflicts.length === 0) return;
  if (inserted.length > 0) await db.delete(xapiStatements).where(and(eq(xapiStatements.partnerId, partnerId), inList(xapiStatements.statementId, inserted)));
  throw new ApiError(409, "A statement id was already used for a different statement; nothing was stored.", conflicts);
}

/**
 * Hands each registration's statements, in time order, to its Durable Object (the path of the event
 * endpoints: services/events.ts -> RegistrationObject.ingest), which skips statements it has stored.
 * Everything that can refuse a statement was checked before, so no registration refuses while another
 * stores; if an object fails (503) the request is answered 503, and its retry stores the rest exactly
 * once (docs/xapi.md "All or nothing").
 */
export async function ingestStatements(env: Env, statements: MappedStatement[], targets: Map<string, StatementTarget>, nowMs: number): Promise<void> {
  const byRegistration = new Map<string, MappedStatement[]>();
  for (const s of statements) byRegistration.set(s.registrationId, [...(byRegistration.get(s.registrationId) ?? []), s]);
  const results = await Promise.allSettled(
    [...byRegistration].map(([registrationId, group]) => {
      const target = targets.get(registrationId);
      if (!target?.graphUuid || target.graphVersion === null) throw badRequest("The registration's learning instance has no knowledge graph.");
      const r = target.registration;
      return ingestEvents(env, {
        registrationId,
        accountId: r.accountId,
        registrationCreatedAt: r.createdAt,
        learningInstanceId: r.learningInstanceId,
        goals: [],
        graphUuid: target.graphUuid,
        graphVersion: target.graphVersion,
        events: group.map((s) => s.event).sort((a, b) => a.occurredAt - b.occurredAt),
        ignoreInvalidModuleIds: false,
        nowMs,
      });
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed?.reason instanceof ApiError && failed.reason.status === 503) {
    throw serviceUnavailable(
      "A registration's event store failed while storing the statements; some may be stored. Retry the same request: a statement already stored is not stored twice.",
      failed.reason.cause ?? failed.reason,
    );
  }
  if (failed) throw failed.reason;
}
