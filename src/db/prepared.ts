import type { Db } from "./client";

/**
 * A query prepared once per drizzle instance (so per D1 binding) instead of built on every request:
 * drizzle's SQL building cost about as much CPU as running a small query (docs/performance.md).
 * `build` makes the prepared query, with `sql.placeholder`s for what varies.
 */
export function preparedPerDb<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const prepared = new WeakMap<Db, Q>();
  return (db) => {
    let query = prepared.get(db);
    if (!query) {
      query = build(db);
      prepared.set(db, query);
    }
    return query;
  };
}
