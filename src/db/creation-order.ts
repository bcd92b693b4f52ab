import { asc, getTableName, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * The order every listing promises: creation order. `created_at` alone ties within a millisecond,
 * so ties go by rowid, which is insertion order (never by the random id).
 */
export function creationOrder(table: SQLiteTable & { createdAt: SQLiteColumn }): SQL[] {
  return [asc(table.createdAt), asc(sql.raw(`"${getTableName(table)}".rowid`))];
}
