import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Db = ReturnType<typeof createDb>;

/**
 * The drizzle instance of a D1 binding, built once per binding object: building one walks the
 * whole schema (relational config), which cost about as much as a D1 query when every Durable
 * Object call and queue batch built its own. The runtime hands an isolate or object the same
 * binding object for its lifetime; a replaced one (tests inject failing D1s) gets its own instance.
 */
const instances = new WeakMap<D1Database, Db>();

export function openDb(d1: D1Database): Db {
  let db = instances.get(d1);
  if (!db) {
    db = createDb(d1);
    instances.set(d1, db);
  }
  return db;
}
