/**
 * Erasure of a registration's Durable Object (docs/privacy.md "Erasure"):
 * everything it stores goes (every SQLite table, whatever later versions add, every key-value entry
 * and the alarm), and a tombstone is left that holds only the counts of what was removed: no id,
 * nothing of the learner. From then on the object refuses every call, so an event that raced the
 * erasure is refused, never stored in an emptied object.
 */

import { REGISTRATION_ERASED } from "../../errors";
import type { IngestOutcome } from "./rpc";

/** What erasing the object removed: rows per SQLite table and stored key-value entries. */
export type ErasedCounts = Record<string, number>;

const TOMBSTONE = "erased";

/** The receipt's name for a table of the object (tables added later appear under their own name). */
const STORE_NAMES: Record<string, string> = {
  events: "events",
  idempotency: "idempotency_records",
  outbox: "outbox_messages",
  xapi_statements: "xapi_statement_records",
};

export function isErased(storage: DurableObjectStorage): boolean {
  return storage.kv.get(TOMBSTONE) !== undefined;
}

/** An erased object's answer to an event post: the registration is gone (nothing is stored). */
export const ERASED: IngestOutcome = { ok: false, status: 404, message: "Registration not found.", details: [], replayed: false };

/** Thrown by a read of an erased registration (it raced the erasure; the API answers 404 from then on). */
export class RegistrationErased extends Error {
  constructor() {
    super(REGISTRATION_ERASED);
    this.name = "RegistrationErased";
  }
}

/**
 * Deletes all of the object's storage and leaves the tombstone. Idempotent: a repeated call (an
 * erasure job resumed after a crash) returns the counts of the first.
 */
export async function eraseStorage(storage: DurableObjectStorage): Promise<ErasedCounts> {
  const done = storage.kv.get<ErasedCounts>(TOMBSTONE);
  if (done) return done;
  const counts: ErasedCounts = {};
  const tables = storage.sql
    // the runtime's own tables (_cf_*, sqlite_*, a local runtime's __*) are not the registration's data
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 4) <> '_cf_' AND substr(name, 1, 7) <> 'sqlite_' AND substr(name, 1, 2) <> '__'",
    )
    .toArray();
  for (const { name } of tables) {
    counts[STORE_NAMES[name] ?? name] = storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).one().n;
  }
  let values = 0;
  for (const _ of storage.kv.list()) values++;
  counts.object_values = values;
  await storage.deleteAlarm();
  await storage.deleteAll();
  storage.kv.put(TOMBSTONE, counts);
  return counts;
}
