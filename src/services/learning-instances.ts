import type { z } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { creationOrder } from "../db/creation-order";
import { goals, graphs, type LearningInstanceRow, learningInstances, type RegistrationRow, registrations } from "../db/schema";
import type { RegistrationType } from "../domain/vocabulary";
import { notFound, unprocessable } from "../errors";
import type { CreateLearningInstanceInput, LearningInstanceView, UpdateLearningInstanceBody } from "../schemas/learning-instances";
import { resolveGraphRef } from "./graph-store";
import { containsEmail } from "./pii";

export function learningInstanceView(row: LearningInstanceRow): LearningInstanceView {
  const view: LearningInstanceView = { id: row.id, graph_id: row.graphId, name: row.name, in_progress: true };
  if (row.startDate) view.start_date = row.startDate;
  if (row.endDate) view.end_date = row.endDate;
  return view;
}

/** The updatable fields of PUT /v0/learning-instances/{id} (graph_id is checked by the route). */
export type LearningInstanceFields = Omit<z.infer<typeof UpdateLearningInstanceBody>, "graph_id">;

function checkFields(fields: LearningInstanceFields, current?: LearningInstanceRow): void {
  if (fields.name !== undefined && containsEmail(fields.name)) {
    throw unprocessable("The learning instance name contains an e-mail address; names must hold no personal data.", [
      { path: "body.name", message: "contains an e-mail address" },
    ]);
  }
  const start = fields.start_date !== undefined ? fields.start_date : current?.startDate;
  const end = fields.end_date !== undefined ? fields.end_date : current?.endDate;
  if (start && end && Date.parse(end) < Date.parse(start)) {
    throw unprocessable("end_date is before start_date.", [{ path: "body.end_date", message: "before start_date" }]);
  }
}

const isoUtc = (value: string | null | undefined) => (value ? new Date(value).toISOString() : value);

export async function createLearningInstance(db: Db, partnerId: string, input: CreateLearningInstanceInput): Promise<LearningInstanceRow> {
  checkFields(input);
  const graph = await resolveGraphRef(db, partnerId, input.graph_id);
  if (!graph) {
    throw unprocessable(`No graph '${input.graph_id}' for this partner; ingest it with POST /v0/graphs first.`, [
      { path: "body.graph_id", message: "unknown graph (send a graph uuid or gref- label of this partner)" },
    ]);
  }
  const row: LearningInstanceRow = {
    id: crypto.randomUUID(),
    partnerId,
    graphId: input.graph_id,
    graphUuid: graph.id,
    name: input.name,
    startDate: isoUtc(input.start_date) ?? null,
    endDate: isoUtc(input.end_date) ?? null,
    createdAt: Date.now(),
    deletedAt: null,
    erasedAt: null,
  };
  await db.insert(learningInstances).values(row);
  return row;
}

/** Whether `graphRef` (a uuid in any case, or a gref- label) names the graph the instance teaches. */
export async function namesInstanceGraph(db: Db, li: LearningInstanceRow, graphRef: string): Promise<boolean> {
  if (graphRef === li.graphId || graphRef.toLowerCase() === li.graphUuid) return true;
  const graph = await resolveGraphRef(db, li.partnerId, graphRef);
  return graph !== undefined && graph.id === li.graphUuid;
}

/** A live learning instance of any partner (the caller rule then hides other partners' ones). */
export async function findLearningInstance(db: Db, id: string): Promise<LearningInstanceRow | undefined> {
  return db
    .select()
    .from(learningInstances)
    .where(and(eq(learningInstances.id, id), isNull(learningInstances.deletedAt)))
    .get();
}

export async function requireLearningInstance(db: Db, id: string): Promise<LearningInstanceRow> {
  const row = await findLearningInstance(db, id);
  if (!row) throw notFound("Learning instance");
  return row;
}

export async function updateLearningInstance(db: Db, current: LearningInstanceRow, fields: LearningInstanceFields): Promise<LearningInstanceRow> {
  checkFields(fields, current);
  const next: LearningInstanceRow = {
    ...current,
    name: fields.name ?? current.name,
    startDate: fields.start_date !== undefined ? (isoUtc(fields.start_date) ?? null) : current.startDate,
    endDate: fields.end_date !== undefined ? (isoUtc(fields.end_date) ?? null) : current.endDate,
  };
  // Only a live instance: a PUT racing the instance's DELETE answers 404, never 200 after the 204.
  const updated = await db
    .update(learningInstances)
    .set({ name: next.name, startDate: next.startDate, endDate: next.endDate })
    .where(and(eq(learningInstances.id, current.id), isNull(learningInstances.deletedAt)))
    .returning({ id: learningInstances.id });
  if (updated.length === 0) throw notFound("Learning instance");
  return next;
}

/** Deletes the instance, its registrations and its scoped goals (soft: rows are kept for the record, invisible to the API). */
export async function deleteLearningInstance(db: Db, id: string): Promise<void> {
  const now = Date.now();
  await db.batch([
    db
      .update(registrations)
      .set({ deletedAt: now })
      .where(and(eq(registrations.learningInstanceId, id), isNull(registrations.deletedAt))),
    db
      .update(goals)
      .set({ deletedAt: now })
      .where(and(eq(goals.learningInstanceId, id), isNull(goals.deletedAt))),
    db.update(learningInstances).set({ deletedAt: now }).where(eq(learningInstances.id, id)),
  ]);
}

export async function listLearningInstances(db: Db, partnerId: string, offset: number, limit: number): Promise<LearningInstanceRow[]> {
  return db
    .select()
    .from(learningInstances)
    .where(and(eq(learningInstances.partnerId, partnerId), isNull(learningInstances.deletedAt)))
    .orderBy(...creationOrder(learningInstances))
    .limit(limit)
    .offset(offset)
    .all();
}

export async function listRegistrationsOfInstance(
  db: Db,
  learningInstanceId: string,
  type: RegistrationType | undefined,
  offset: number,
  limit: number,
): Promise<RegistrationRow[]> {
  const filters = [eq(registrations.learningInstanceId, learningInstanceId), isNull(registrations.deletedAt)];
  if (type) filters.push(eq(registrations.type, type));
  return db
    .select()
    .from(registrations)
    .where(and(...filters))
    .orderBy(...creationOrder(registrations))
    .limit(limit)
    .offset(offset)
    .all();
}

/** A live learning instance with the latest version of its graph, in one query (404 when missing). */
export async function requireInstanceWithGraph(db: Db, id: string): Promise<{ li: LearningInstanceRow; graph: { uuid: string; version: number } }> {
  const row = await db
    .select({ li: learningInstances, version: graphs.version })
    .from(learningInstances)
    .leftJoin(graphs, eq(graphs.id, learningInstances.graphUuid))
    .where(and(eq(learningInstances.id, id), isNull(learningInstances.deletedAt)))
    .get();
  if (!row) throw notFound("Learning instance");
  if (!row.li.graphUuid || row.version === null) throw unprocessable("The learning instance has no knowledge graph.");
  return { li: row.li, graph: { uuid: row.li.graphUuid, version: row.version } };
}
