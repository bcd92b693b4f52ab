/**
 * An erasure's counts per store (`erasures.progress`, the receipt's `removed`), written in the same
 * D1 batch (a transaction) as the deletions they count: a job resumed after a crash never counts a
 * row twice and never loses a count.
 */

/** The JSON path of a store's count (names are table names: letters, digits and underscores). */
const storePath = (store: string): string => `'$.${store.replace(/[^A-Za-z0-9_]/g, "_")}'`;

/** `UPDATE erasures` adding `counts` to the erasure's progress. */
export function addProgress(d1: D1Database, erasureId: string, counts: Record<string, number>, nowMs: number): D1PreparedStatement {
  const entries = Object.entries(counts);
  const sets = entries.map(([store]) => `${storePath(store)}, COALESCE(json_extract(progress, ${storePath(store)}), 0) + ?`).join(", ");
  const progress = entries.length ? `json_set(progress, ${sets})` : "progress";
  return d1.prepare(`UPDATE erasures SET progress = ${progress}, updated_at = ? WHERE id = ?`).bind(...entries.map(([, n]) => n), nowMs, erasureId);
}

/**
 * Two statements for one batch: the rows of `table` that `where` selects are added to the erasure's
 * progress under `store`, then deleted.
 */
export function countedDelete(d1: D1Database, erasureId: string, store: string, table: string, where: string, ...params: unknown[]): D1PreparedStatement[] {
  const path = storePath(store);
  return [
    d1
      .prepare(
        `UPDATE erasures SET progress = json_set(progress, ${path}, COALESCE(json_extract(progress, ${path}), 0) + (SELECT COUNT(*) FROM ${table} WHERE ${where})) WHERE id = ?`,
      )
      .bind(...params, erasureId),
    d1.prepare(`DELETE FROM ${table} WHERE ${where}`).bind(...params),
  ];
}

/** The sum of count maps. */
export function sumCounts(maps: Iterable<Record<string, number> | null | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [k, n] of Object.entries(m ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}
