/**
 * The stored forms of a graph version, read from D1 (src/services/graph-store.ts writes them): the
 * GET document as stored text, and the compact runtime form, parsed and indexed once per isolate and
 * version (resolved values only), so a Durable Object or Worker isolate parses each version once.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { graphBlobs, graphs } from "../db/schema";
import { decodeRuntimeGraph, type StoredRuntimeGraph } from "../graphs/runtime-codec";
import { type GraphIndex, indexGraph } from "../graphs/runtime-graph";

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

/**
 * Parsed graph versions kept per isolate, bounded by their total module count: an indexed
 * 20,000-module graph takes about 9 MiB of heap, and an isolate has 128 MB. The most recently
 * used version is always kept.
 */
const CACHE_MAX_MODULES = 60_000;
const CACHE_MAX_ENTRIES = 32;

/**
 * Only parsed, resolved graphs are shared across the isolate: every Durable Object of a class and
 * every Worker request may run in one isolate, and a promise of a read started in another object's
 * or request's context must never be awaited (if that context goes away first, the waiter's work
 * continues in the wrong context or not at all). A caller that misses reads for itself; concurrent
 * misses inside one object are merged by that object's own `InFlight`.
 */
const cache = new Map<string, { graph: GraphIndex; weight: number }>();

/** Keeps a parsed version (one just stored, or just read), evicting the least recently used beyond the bounds. */
export function rememberRuntimeGraph(graphId: string, version: number, graph: GraphIndex): GraphIndex {
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
  return cache.get(key)?.graph ?? rememberRuntimeGraph(id, v, parseStoredRuntime(text));
}

/** The stored runtime text (joined parts) -> indexed graph: what a Durable Object pays once per version. */
export function parseStoredRuntime(text: string): GraphIndex {
  return indexGraph(decodeRuntimeGraph(JSON.parse(text) as StoredRuntimeGraph));
}

/** Test hook: forget every cached graph. */
export function clearGraphCache(): void {
  cache.clear();
}
