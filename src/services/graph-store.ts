import type { z } from "@hono/zod-openapi";
/**
 * Knowledge graph storage: ingest and additive update of graph documents, their versions, and the
 * stored forms of each version (the GET body and the compact RuntimeGraph), cut into parts because
 * a D1 value is limited to about 2 MB. `loadRuntimeGraph` caches parsed and indexed versions per
 * isolate (resolved values only), so a Durable Object or Worker isolate parses each version once.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { creationOrder } from "../db/creation-order";
import { type GraphRow, graphBlobs, graphs, graphVersions } from "../db/schema";
import { ApiError, unprocessable } from "../errors";
import { buildRuntimeGraph } from "../graphs/build-runtime-graph";
import type { GraphCounts, GraphDocument } from "../graphs/graph-document";
import type { GraphIssue } from "../graphs/graph-issues";
import { nonAdditiveChanges } from "../graphs/graph-update-rules";
import { decodeRuntimeGraph, encodeRuntimeGraph, type StoredRuntimeGraph } from "../graphs/runtime-codec";
import { type GraphIndex, indexGraph, type RuntimeGraph } from "../graphs/runtime-graph";
import { validateGraph } from "../graphs/validate-graph";
import type { GraphSummarySchema, GraphVersionCreatedSchema } from "../schemas/graphs";

/** Characters per stored part: at most ~1.5 MB of UTF-8 even for non-Latin text (D1 allows ~2 MB per value). */
export const BLOB_PART_CHARS = 512 * 1024;
/** How many issues a 422 lists at most (the validate endpoint returns them all). */
export const MAX_ERROR_DETAILS = 1000;
/**
 * Parsed graph versions kept per isolate, bounded by their total module count: an indexed
 * 20,000-module graph takes about 9 MiB of heap, and an isolate has 128 MB. The most recently
 * used version is always kept.
 */
const CACHE_MAX_MODULES = 60_000;
const CACHE_MAX_ENTRIES = 32;

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
  remember(row.id, row.version, indexGraph(runtime));
}

function isConstraintError(err: unknown): boolean {
  const text = String((err as { cause?: unknown })?.cause ?? "") + String(err);
  return /constraint/i.test(text);
}

async function readBlob(db: Db, graphId: string, version: number, kind: "document" | "runtime"): Promise<string | undefined> {
  const parts = await db
    .select({ data: graphBlobs.data })
    .from(graphBlobs)
    .where(and(eq(graphBlobs.graphId, graphId), eq(graphBlobs.version, version), eq(graphBlobs.kind, kind)))
    .orderBy(asc(graphBlobs.part))
    .all();
  return parts.length ? parts.map((p) => p.data).join("") : undefined;
}

/** The GET /v0/graphs/{graph_id} body of a version, as stored JSON text (no parse on the way out); undefined when the version was never stored. */
export async function readGraphDocument(db: Db, graphId: string, version: number): Promise<string | undefined> {
  return readBlob(db, graphId, version, "document");
}

/** The latest version of a graph (one small D1 read), undefined when there is no such graph. */
export async function latestGraphVersion(db: Db, graphUuid: string): Promise<number | undefined> {
  const row = await db.select({ version: graphs.version }).from(graphs).where(eq(graphs.id, graphUuid.toLowerCase())).get();
  return row?.version;
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

// --- the in-isolate cache of parsed runtime graphs ---

/**
 * Only parsed, resolved graphs are shared across the isolate: every Durable Object of a class and
 * every Worker request may run in one isolate, and a promise of a read started in another object's
 * or request's context must never be awaited (if that context goes away first, the waiter's work
 * continues in the wrong context or not at all). A caller that misses reads for itself; concurrent
 * misses inside one object are merged by that object's own `InFlight`.
 */
const cache = new Map<string, { graph: GraphIndex; weight: number }>();

function remember(graphId: string, version: number, graph: GraphIndex): GraphIndex {
  const key = `${graphId}@${version}`;
  // Another caller may have parsed the same version meanwhile: keep one copy (memos key on it).
  const kept = cache.get(key)?.graph ?? graph;
  cache.delete(key);
  cache.set(key, { graph: kept, weight: kept.graph.modules.length });
  let total = 0;
  for (const e of cache.values()) total += e.weight;
  for (const [k, e] of cache) {
    if (cache.size <= 1 || (total <= CACHE_MAX_MODULES && cache.size <= CACHE_MAX_ENTRIES)) break;
    cache.delete(k);
    total -= e.weight;
  }
  return kept;
}

/**
 * The indexed runtime form of a graph version (latest when `version` is omitted), read and parsed
 * once per isolate and version (a caller that misses reads it itself). Undefined if there is none.
 */
export async function loadRuntimeGraph(db: Db, graphUuid: string, version?: number): Promise<GraphIndex | undefined> {
  const id = graphUuid.toLowerCase();
  const v = version ?? (await latestGraphVersion(db, id));
  if (v === undefined) return undefined;
  const key = `${id}@${v}`;
  const hit = cache.get(key);
  if (hit) {
    // refresh recency
    cache.delete(key);
    cache.set(key, hit);
    return hit.graph;
  }
  const text = await readBlob(db, id, v, "runtime");
  if (text === undefined) return undefined;
  return cache.get(key)?.graph ?? remember(id, v, parseStoredRuntime(text));
}

/** The stored runtime text (joined parts) -> indexed graph: what a Durable Object pays once per version. */
export function parseStoredRuntime(text: string): GraphIndex {
  return indexGraph(decodeRuntimeGraph(JSON.parse(text) as StoredRuntimeGraph));
}

/** Test hook: forget every cached graph. */
export function clearGraphCache(): void {
  cache.clear();
}
