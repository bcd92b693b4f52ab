import type { z } from "@hono/zod-openapi";
/**
 * Knowledge graph storage: ingest and additive update of graph documents, their versions, and the
 * stored forms of each version (the GET body and the compact RuntimeGraph), cut into parts because
 * a D1 value is limited to about 2 MB. Reading them back, and the isolate's cache of parsed
 * versions, is src/reads/graph-versions.ts.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { creationOrder } from "../db/creation-order";
import { type GraphRow, graphBlobs, graphs, graphVersions } from "../db/schema";
import { ApiError, unprocessable } from "../errors";
import { buildRuntimeGraph } from "../graphs/build-runtime-graph";
import type { GraphCounts, GraphDocument } from "../graphs/graph-document";
import type { GraphIssue } from "../graphs/graph-issues";
import { nonAdditiveChanges } from "../graphs/graph-update-rules";
import { encodeRuntimeGraph } from "../graphs/runtime-codec";
import { indexGraph, type RuntimeGraph } from "../graphs/runtime-graph";
import { validateGraph } from "../graphs/validate-graph";
import { loadRuntimeGraph, rememberRuntimeGraph } from "../reads/graph-versions";
import type { GraphSummarySchema, GraphVersionCreatedSchema } from "../schemas/graphs";

/** Characters per stored part: at most ~1.5 MB of UTF-8 even for non-Latin text (D1 allows ~2 MB per value). */
export const BLOB_PART_CHARS = 512 * 1024;
/** How many issues a 422 lists at most (the validate endpoint returns them all). */
export const MAX_ERROR_DETAILS = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface GraphRef {
  id: string;
  label: string;
  version: number;
}

export type GraphSummary = z.infer<typeof GraphSummarySchema>;
export type IngestResult = z.infer<typeof GraphVersionCreatedSchema>;

export function splitParts(text: string, size = BLOB_PART_CHARS): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts.length ? parts : [""];
}

/** The partner's graph named by its uuid or gref- label, if any (another partner's graph is never found). */
/** The condition selecting a partner's graph by its uuid or its label. */
export function graphMatch(partnerId: string, uuidOrLabel: string) {
  return and(eq(graphs.partnerId, partnerId), UUID.test(uuidOrLabel) ? eq(graphs.id, uuidOrLabel.toLowerCase()) : eq(graphs.label, uuidOrLabel));
}

export async function findGraph(db: Db, partnerId: string, uuidOrLabel: string): Promise<GraphRow | undefined> {
  return db.select().from(graphs).where(graphMatch(partnerId, uuidOrLabel)).get();
}

export async function resolveGraphRef(db: Db, partnerId: string, uuidOrLabel: string): Promise<GraphRef | undefined> {
  const row = await findGraph(db, partnerId, uuidOrLabel);
  return row && { id: row.id, label: row.label, version: row.version };
}

function invalid(message: string, issues: GraphIssue[]): ApiError {
  const details = issues.slice(0, MAX_ERROR_DETAILS);
  if (issues.length > details.length) {
    details.push({ path: "body", message: `${issues.length - details.length} more problems not listed; POST /v0/graphs/validate reports them all` });
  }
  return unprocessable(message, details);
}

function assertValid(doc: GraphDocument): GraphCounts {
  const report = validateGraph(doc);
  if (!report.valid) throw invalid(`The graph document has ${report.errors.length} problem(s); see details.`, report.errors);
  return report.counts;
}

/** POST /v0/graphs: validates, builds the runtime form and stores version 1. */
export async function ingestGraph(db: Db, partnerId: string, doc: GraphDocument, now = Date.now()): Promise<IngestResult> {
  const counts = assertValid(doc);
  const labelTaken = () =>
    unprocessable(`A graph labelled '${doc.label}' already exists; update it with PUT /v0/graphs/${doc.label}.`, [
      { path: "body.label", message: "already used by another graph of this partner" },
    ]);
  if (await findGraph(db, partnerId, doc.label)) throw labelTaken();
  const row: GraphRow = { id: crypto.randomUUID(), partnerId, label: doc.label, name: doc.name, version: 1, createdAt: now, updatedAt: now };
  try {
    await storeVersion(db, row, doc, counts, undefined, now);
  } catch (err) {
    if (isConstraintError(err)) throw labelTaken();
    throw err;
  }
  return { id: row.id, label: row.label, name: row.name, version: 1, counts };
}

/**
 * PUT /v0/graphs/{graph_id}: a new version that is additive over the current one (every objective,
 * module, bundle and taxon id kept, nothing taken away from them: `nonAdditiveChanges`).
 */
export async function updateGraph(db: Db, current: GraphRow, doc: GraphDocument, now = Date.now()): Promise<IngestResult> {
  if (doc.label !== current.label) {
    throw unprocessable("The graph label cannot change.", [{ path: "body.label", message: `must be '${current.label}' (the label of this graph)` }]);
  }
  const counts = assertValid(doc);
  const previous = await loadRuntimeGraph(db, current.id, current.version);
  if (!previous) throw new Error(`graph ${current.id} version ${current.version} has no runtime form`);
  const changes = nonAdditiveChanges(previous.graph, doc);
  if (changes.length) {
    throw invalid(`An update may only add to the graph and rename; ${changes.length} existing id(s) were removed or lost something (see details).`, changes);
  }
  const next: GraphRow = { ...current, name: doc.name, version: current.version + 1, updatedAt: now };
  try {
    await storeVersion(db, next, doc, counts, previous.graph, now);
  } catch (err) {
    if (isConstraintError(err)) throw new ApiError(409, "The graph was updated concurrently; fetch it and retry.");
    throw err;
  }
  return { id: next.id, label: next.label, name: next.name, version: next.version, counts };
}

async function storeVersion(db: Db, row: GraphRow, doc: GraphDocument, counts: GraphCounts, previous: RuntimeGraph | undefined, now: number) {
  const runtime = buildRuntimeGraph(doc, {
    id: row.id,
    version: row.version,
    previousUuids: previous && new Map(previous.modules.map((m) => [m.label, m.uuid])),
  });
  const uuidOf = new Map(runtime.modules.map((m) => [m.label, m.uuid]));
  const body = {
    id: row.id,
    label: doc.label,
    name: doc.name,
    version: row.version,
    // when this version was stored: GET answers it as updated_at, next to the graph's created_at (graph-times.ts)
    created_at: new Date(now).toISOString(),
    learning_objectives: doc.learning_objectives,
    modules: doc.modules.map((m) => ({ ...m, uuid: uuidOf.get(m.id)! })),
    bundles: (doc.bundles ?? []).map((b) => ({ ...b, uuid: uuidOf.get(b.id)! })),
    taxonomy: doc.taxonomy ?? [],
  };
  const documentParts = splitParts(JSON.stringify(body));
  const runtimeParts = splitParts(JSON.stringify(encodeRuntimeGraph(runtime)));
  const graphWrite =
    row.version === 1
      ? db.insert(graphs).values(row)
      : db
          .update(graphs)
          .set({ name: row.name, version: row.version, updatedAt: row.updatedAt })
          .where(and(eq(graphs.id, row.id), eq(graphs.version, row.version - 1)));
  const blobRows = [
    ...documentParts.map((data, part) => ({ graphId: row.id, version: row.version, kind: "document" as const, part, data })),
    ...runtimeParts.map((data, part) => ({ graphId: row.id, version: row.version, kind: "runtime" as const, part, data })),
  ];
  await db.batch([
    graphWrite,
    db.insert(graphVersions).values({
      graphId: row.id,
      version: row.version,
      name: row.name,
      counts: { ...counts },
      documentParts: documentParts.length,
      runtimeParts: runtimeParts.length,
      runtimeFormat: runtime.format,
      createdAt: now,
    }),
    ...blobRows.map((b) => db.insert(graphBlobs).values(b)),
  ]);
  rememberRuntimeGraph(row.id, row.version, indexGraph(runtime));
}

function isConstraintError(err: unknown): boolean {
  const text = String((err as { cause?: unknown })?.cause ?? "") + String(err);
  return /constraint/i.test(text);
}

export async function listGraphs(db: Db, partnerId: string, offset: number, limit: number): Promise<GraphSummary[]> {
  const rows = await db
    .select({ graph: graphs, counts: graphVersions.counts })
    .from(graphs)
    .innerJoin(graphVersions, and(eq(graphVersions.graphId, graphs.id), eq(graphVersions.version, graphs.version)))
    .where(eq(graphs.partnerId, partnerId))
    .orderBy(...creationOrder(graphs))
    .limit(limit)
    .offset(offset)
    .all();
  return rows.map(({ graph, counts }) => ({
    id: graph.id,
    label: graph.label,
    name: graph.name,
    version: graph.version,
    counts,
    created_at: new Date(graph.createdAt).toISOString(),
    updated_at: new Date(graph.updatedAt).toISOString(),
  }));
}
