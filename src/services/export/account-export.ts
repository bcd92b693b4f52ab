import type { z } from "@hono/zod-openapi";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type AccountRow, type GoalRow, goalAssignments, goals, graphs, learningInstances, registrations } from "../../db/schema";
import type { Env } from "../../env";
import { EXPORT_PAGE_EVENTS, type ExportedEventRow } from "../../objects/registration/export";
import type { AccountExportSchema } from "../../schemas/data-lifecycle";
import { goalSpecOf } from "../goal-specs";
import { type StatementContext, statementOf } from "./xapi-statements";

type AccountExport = z.infer<typeof AccountExportSchema>;
type RegistrationExport = AccountExport["registrations"][number];
type ExportedEvent = RegistrationExport["events"][number];

/** What an export has sent so far (the record of data requests keeps it). */
export interface ExportTally {
  registrations: number;
  events: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Every registration of the account (deleted ones too: their data is still held), with its instance and graph. */
async function registrationsOf(db: Db, accountId: string) {
  return db
    .select({ registration: registrations, instance: learningInstances, graphVersion: graphs.version })
    .from(registrations)
    .innerJoin(learningInstances, eq(learningInstances.id, registrations.learningInstanceId))
    .leftJoin(graphs, eq(graphs.id, learningInstances.graphUuid))
    .where(eq(registrations.accountId, accountId))
    .orderBy(asc(registrations.createdAt))
    .all();
}
type Registration = Awaited<ReturnType<typeof registrationsOf>>[number];

/** The stored events of a registration, a page at a time from its Durable Object (never the whole log at once). */
async function* eventPages(env: Env, registrationId: string): AsyncGenerator<{ events: ExportedEventRow[]; removed: number }> {
  const stub = env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(registrationId));
  let after: number | undefined = 0;
  while (after !== undefined) {
    const page = await stub.exportEvents(after, EXPORT_PAGE_EVENTS);
    yield { events: page.events, removed: page.removed_by_retention };
    after = page.next_after;
  }
}

/** An event as the JSON export writes it: the API's vocabulary, times in ISO 8601. */
function exportedEvent(e: ExportedEventRow): ExportedEvent {
  const { body } = e;
  const out: ExportedEvent = { type: `${e.kind}-events`, received_at: iso(e.received_at) };
  if (body.module_id !== undefined) out.module_id = body.module_id;
  if (e.module !== null) out.module = e.module;
  if (e.kind === "graded" || e.kind === "ungraded") out.interaction_end_time = iso(e.occurred_at);
  if (e.kind === "recommendation-followed") out.time_followed = iso(e.occurred_at);
  if (body.is_correct !== undefined) out.is_correct = body.is_correct;
  if (body.duration !== undefined) out.duration = body.duration;
  if (body.goal_id !== undefined) out.goal_id = body.goal_id;
  if (body.instance_hash !== undefined) out.instance_hash = body.instance_hash;
  if (body.recommendation_id !== undefined) out.recommendation_id = body.recommendation_id;
  if (e.graph_version !== null) out.graph_version = e.graph_version;
  if (body.statement_id !== undefined) out.statement_id = body.statement_id;
  return out;
}

/** The registration's goals, current beliefs with intervals and goal statuses (from its Durable Object). */
async function registrationHead(env: Env, db: Db, r: Registration, removed: number): Promise<Omit<RegistrationExport, "events">> {
  const assigned = await db
    .select({ goal: goals, assignedAt: goalAssignments.assignedAt })
    .from(goalAssignments)
    .innerJoin(goals, and(eq(goals.id, goalAssignments.goalId), isNull(goals.deletedAt)))
    .where(eq(goalAssignments.registrationId, r.registration.id))
    .orderBy(asc(goalAssignments.assignedAt))
    .all();
  let beliefs: RegistrationExport["beliefs"] = [];
  let statuses: RegistrationExport["goal_statuses"] = [];
  const graphUuid = r.instance.graphUuid;
  if (graphUuid && r.graphVersion !== null) {
    const graph = { uuid: graphUuid, version: r.graphVersion };
    const stub = env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(r.registration.id));
    const objectives = Object.keys((await stub.learnerState()).objectives).sort();
    const nowMs = Date.now();
    const values = objectives.length ? await stub.metricsRow({ metric: "proficiency", graph, goals: [], objectiveIds: objectives, nowMs }) : [];
    beliefs = objectives.map((id, i) => ({
      learning_objective_id: id,
      ...(values[i] as { proficiency: number; lower: number; upper: number; evidence: number }),
    }));
    const goalRows: GoalRow[] = assigned.map((a) => a.goal);
    const computed = goalRows.length
      ? await stub.statuses(
          goalRows.map((g) => goalSpecOf(g, graph.uuid, graph.version)),
          nowMs,
        )
      : [];
    statuses = goalRows.map((g, i) => ({ goal_id: g.id, ...(computed[i] as (typeof computed)[number]) }));
  }
  return {
    id: r.registration.id,
    type: r.registration.type,
    created_at: iso(r.registration.createdAt),
    deleted: r.registration.deletedAt !== null,
    learning_instance: { id: r.instance.id, name: r.instance.name, graph_id: r.instance.graphId },
    goal_assignments: assigned.map((a) => ({ goal_id: a.goal.id, name: a.goal.body.name, assigned_at: iso(a.assignedAt) })),
    beliefs,
    goal_statuses: statuses,
    events_removed_by_retention: removed,
  };
}

/**
 * GET /v0/accounts/{id}/export: the account's data as one JSON document (decisions.md "Student
 * data lifecycle"), produced piece by piece: the account, then per registration its head (goals,
 * beliefs, statuses) and its events a page at a time, so memory holds one page whatever the log's length.
 */
export async function* accountDocument(env: Env, db: Db, account: AccountRow, tally: ExportTally): AsyncGenerator<string> {
  const head = {
    format: "pathwise.account-export.v1",
    exported_at: iso(Date.now()),
    account: { id: account.id, external_user_id: account.externalUserId, created_at: iso(account.createdAt), disabled: account.disabledAt !== null },
  };
  yield `${JSON.stringify(head).slice(0, -1)},"registrations":[`;
  for (const [i, r] of (await registrationsOf(db, account.id)).entries()) {
    const pages = eventPages(env, r.registration.id);
    const first = await pages.next();
    const removed = first.done ? 0 : first.value.removed;
    yield `${i ? "," : ""}${JSON.stringify(await registrationHead(env, db, r, removed)).slice(0, -1)},"events":[`;
    let n = 0;
    for (let page = first; !page.done; page = await pages.next()) {
      if (page.value.events.length === 0) continue;
      yield `${n ? "," : ""}${page.value.events.map((e) => JSON.stringify(exportedEvent(e))).join(",")}`;
      n += page.value.events.length;
    }
    tally.registrations++;
    tally.events += n;
    yield "]}";
  }
  yield "]}";
}

/** `?format=xapi`: every stored event of the account as an xAPI 1.0.3 statement, one JSON array, a page at a time. */
export async function* accountStatements(env: Env, db: Db, account: AccountRow, origin: string, tally: ExportTally): AsyncGenerator<string> {
  yield "[";
  let n = 0;
  for (const r of await registrationsOf(db, account.id)) {
    const ctx: StatementContext = {
      origin,
      externalUserId: account.externalUserId,
      registrationId: r.registration.id,
      learningInstanceId: r.instance.id,
      graphUuid: r.instance.graphUuid ?? r.instance.graphId,
    };
    for await (const page of eventPages(env, r.registration.id)) {
      if (page.events.length === 0) continue;
      const statements = await Promise.all(page.events.map((e) => statementOf(ctx, e)));
      yield `${n ? "," : ""}${statements.map((s) => JSON.stringify(s)).join(",")}`;
      n += statements.length;
    }
    tally.registrations++;
  }
  tally.events = n;
  yield "]";
}
