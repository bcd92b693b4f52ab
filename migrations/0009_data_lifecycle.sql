-- Student data lifecycle (decisions.md "Student data lifecycle", docs/privacy.md): erasure with a
-- receipt, the record of data requests, retention.

-- An erased account stays as a tombstone: its external_user_id is replaced by a digest of it (never
-- reused, spec 2.1), entitlements cleared. An erased learning instance likewise keeps only its id.
ALTER TABLE accounts ADD COLUMN erased_at INTEGER;
ALTER TABLE learning_instances ADD COLUMN erased_at INTEGER;

-- Partner setting: events older than this many days (counted from their receipt) leave the
-- registrations' logs once folded into the learner state. NULL: keep them.
ALTER TABLE partners ADD COLUMN event_retention_days INTEGER;

-- One erasure per subject (a repeated request returns the same one). `removed` holds the receipt's
-- counts per store once complete; `progress` the counts of the steps done so far (resumable job).
CREATE TABLE erasures (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  subject_type TEXT NOT NULL CHECK (subject_type IN ('account', 'learning_instance')),
  subject_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'complete')),
  -- the job's next step (src/services/erasure/job.ts): digests, tokens, objects, projections, cleanup
  step TEXT NOT NULL DEFAULT 'digests',
  requested_by TEXT NOT NULL,
  requested_at INTEGER NOT NULL,
  completed_at INTEGER,
  progress TEXT NOT NULL DEFAULT '{}',
  removed TEXT,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX erasures_subject ON erasures (subject_type, subject_id);
CREATE INDEX erasures_status ON erasures (status, updated_at);

-- The registrations a pending erasure removes (listed when it is requested, in the same transaction
-- that hides them). Deleted when the erasure completes: these rows name them.
CREATE TABLE erasure_targets (
  erasure_id TEXT NOT NULL REFERENCES erasures(id),
  registration_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  learning_instance_id TEXT NOT NULL,
  -- the counts its Durable Object reported (JSON) once its storage is deleted; NULL before
  removed TEXT,
  PRIMARY KEY (erasure_id, registration_id)
);
CREATE INDEX erasure_targets_registration ON erasure_targets (registration_id);

-- SHA-256 digests (hex) of erased registration ids, kept for good: queue consumers drop a message
-- naming an erased registration, also after the erasure completed (a digest names nobody).
CREATE TABLE erased_registrations (
  digest TEXT PRIMARY KEY
);

-- Never holds a row: a consumer's D1 batch starts with an INSERT of NULL here when one of the
-- registrations it writes about is erased, which fails the whole batch (a transaction), so nothing
-- naming an erased registration is written after its erasure began (src/services/erasure/fence.ts).
CREATE TABLE erasure_fence (
  refused TEXT NOT NULL
);

-- A registration of an erased (or being erased) account is refused, even concurrently with the
-- erasure (as 0006 does for instances being deleted).
CREATE TRIGGER registrations_need_unerased_account
BEFORE INSERT ON registrations
WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND erased_at IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'account_erased');
END;

-- Every export and erasure: who asked, when, what, and the outcome (GET /v0/data-requests).
CREATE TABLE data_requests (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  kind TEXT NOT NULL CHECK (kind IN ('erasure', 'export')),
  subject_type TEXT NOT NULL CHECK (subject_type IN ('account', 'learning_instance')),
  subject_id TEXT NOT NULL,
  -- export: json | xapi
  format TEXT,
  requested_by TEXT NOT NULL,
  request_id TEXT,
  requested_at INTEGER NOT NULL,
  -- erasure: pending | complete; export: streaming | complete | failed | cancelled
  outcome TEXT NOT NULL,
  completed_at INTEGER,
  erasure_id TEXT,
  -- JSON: what an export sent (registrations, events, bytes)
  detail TEXT
);
CREATE INDEX data_requests_partner ON data_requests (partner_id, requested_at);
CREATE INDEX data_requests_erasure ON data_requests (erasure_id);

-- The scheduled retention pass per partner: registrations are visited in rowid order; `cursor` is the
-- last rowid visited (NULL: the pass is done, the next starts an interval after `started_at`).
CREATE TABLE retention_passes (
  partner_id TEXT PRIMARY KEY REFERENCES partners(id),
  started_at INTEGER NOT NULL,
  cursor INTEGER,
  removed_events INTEGER NOT NULL DEFAULT 0
);
