/**
 * Lists of values in SQL. D1 binds at most 100 parameters per statement, so a list is never bound one
 * parameter per value: it is bound as ONE JSON array and expanded in SQL by json_each, which serves a
 * list of any length in a single statement. Every `IN (list)` and `SELECT … FROM list` of the service
 * goes through here.
 */
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

type Values = readonly (string | number)[];

/** The rows of `values` as a table (`value` column): `SELECT value FROM ${jsonEach(ids)}`. */
export function jsonEach(values: Values): SQL {
  return sql`json_each(${JSON.stringify(values)})`;
}

/** `column IN (values)`, one bound parameter whatever the length. */
export function inList(column: SQLWrapper, values: Values): SQL {
  return sql`${column} IN (SELECT value FROM ${jsonEach(values)})`;
}

/** The same for a raw D1 statement: `… WHERE id ${IN_BOUND_LIST}` bound with `JSON.stringify(values)`. */
export const IN_BOUND_LIST = "IN (SELECT value FROM json_each(?))";

/** Bound parameters D1 accepts in one statement. */
const D1_MAX_BOUND_PARAMETERS = 100;

/** `rows` split into multi-row INSERTs that fit in one statement each when every row binds `columns` values. */
export function insertChunks<T>(rows: readonly T[], columns: number): T[][] {
  const size = Math.floor(D1_MAX_BOUND_PARAMETERS / columns);
  return Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
}
