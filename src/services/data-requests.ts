import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type DataRequestRow, dataRequests } from "../db/schema";
import type { DataRequestView } from "../schemas/data-lifecycle";

/**
 * The record of data requests (decisions.md "Student data lifecycle": every export and erasure,
 * who, when, what; GET /v0/data-requests). Rows are written with the request and updated with its
 * outcome; they are kept when the subject is erased (they are the proof that it was).
 */
export type NewDataRequest = Pick<DataRequestRow, "partnerId" | "kind" | "subjectType" | "subjectId" | "requestedBy" | "requestId"> &
  Partial<Pick<DataRequestRow, "format" | "erasureId" | "outcome">>;

export function dataRequestRow(input: NewDataRequest, nowMs: number): DataRequestRow {
  return {
    id: crypto.randomUUID(),
    format: null,
    erasureId: null,
    outcome: "pending",
    completedAt: null,
    detail: null,
    requestedAt: nowMs,
    ...input,
  };
}

/** Records the outcome of a request (an export's end, an erasure's completion). */
export function finishDataRequest(db: Db, id: string, outcome: string, nowMs: number, detail?: Record<string, number>) {
  return db
    .update(dataRequests)
    .set({ outcome, completedAt: nowMs, ...(detail ? { detail } : {}) })
    .where(eq(dataRequests.id, id));
}

export function dataRequestView(row: DataRequestRow): DataRequestView {
  return {
    id: row.id,
    type: row.kind,
    subject: { type: row.subjectType, id: row.subjectId },
    ...(row.format ? { format: row.format as "json" | "xapi" } : {}),
    requested_by: { account_id: row.requestedBy, ...(row.requestId ? { request_id: row.requestId } : {}) },
    requested_at: new Date(row.requestedAt).toISOString(),
    outcome: row.outcome as DataRequestView["outcome"],
    completed_at: row.completedAt === null ? null : new Date(row.completedAt).toISOString(),
    ...(row.erasureId ? { erasure_id: row.erasureId } : {}),
    ...(row.detail ? { detail: row.detail } : {}),
  };
}

/** The partner's data requests, newest first, optionally of one type or one subject. */
export async function listDataRequests(
  db: Db,
  partnerId: string,
  filter: { type?: "erasure" | "export"; subjectId?: string },
  offset: number,
  limit: number,
): Promise<DataRequestRow[]> {
  const where = [eq(dataRequests.partnerId, partnerId)];
  if (filter.type) where.push(eq(dataRequests.kind, filter.type));
  if (filter.subjectId) where.push(eq(dataRequests.subjectId, filter.subjectId));
  return db
    .select()
    .from(dataRequests)
    .where(and(...where))
    .orderBy(desc(dataRequests.requestedAt), desc(sql`${dataRequests}.rowid`))
    .limit(limit)
    .offset(offset)
    .all();
}
