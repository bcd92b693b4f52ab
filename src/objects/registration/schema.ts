/**
 * SQLite schema of a RegistrationObject, versioned inside the object: each entry upgrades from the
 * previous version; `migrate` applies the missing ones once, when the object starts.
 */
const MIGRATIONS: string[] = [
  // 1: the append-only event log, idempotency records, and key/value state (learner state, focus, context)
  `CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL CHECK (kind IN ('graded', 'ungraded', 'recommendation-followed', 'focus')),
     -- module partner label (mref-...) as resolved against the graph, NULL for focus events
     module TEXT,
     graph_version INTEGER,
     -- interaction_end_time / time_followed in ms since the epoch (focus: time received)
     occurred_at INTEGER NOT NULL,
     received_at INTEGER NOT NULL,
     -- the event as accepted (JSON): correctness, duration, goal id, instance hash, recommendation id...
     body TEXT NOT NULL
   );
   CREATE TABLE idempotency (
     key TEXT PRIMARY KEY,
     outcome TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX idempotency_created ON idempotency (created_at);`,
  // 2: outbox of model-update messages (graded answers for online item refinement), sent by the alarm
  `CREATE TABLE outbox (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     body TEXT NOT NULL
   );`,
  // 3: the request fingerprint of an idempotency key (a key reused for a different request is refused)
  `ALTER TABLE idempotency ADD COLUMN fingerprint TEXT;`,
  // 4: the outbox serves two queues: model updates (item refinement) and projections (account-level analytics)
  `ALTER TABLE outbox ADD COLUMN queue TEXT NOT NULL DEFAULT 'model-updates';
   CREATE INDEX outbox_queue ON outbox (queue, id);`,
  // 5: the xAPI statement ids stored (for good: a statement id is the statement's identity; docs/xapi.md)
  `CREATE TABLE xapi_statements (
     id TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     stored_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function migrate(storage: DurableObjectStorage): void {
  const current = storage.kv.get<number>("schema_version") ?? 0;
  if (current >= SCHEMA_VERSION) return;
  storage.transactionSync(() => {
    for (let v = current; v < SCHEMA_VERSION; v++) storage.sql.exec(MIGRATIONS[v] as string);
    storage.kv.put("schema_version", SCHEMA_VERSION);
  });
}
