-- xAPI statements in (docs/xapi.md): every statement id a partner has sent, with the registration
-- and a digest (SHA-256 of its canonical JSON) of the statement. Written before the statement's
-- event is handed to the registration's Durable Object, which keeps its own record of the ids it
-- stored (exactly once); this partner-wide claim refuses the same id for a different statement,
-- whichever registration it names (409).
CREATE TABLE xapi_statements (
  partner_id TEXT NOT NULL REFERENCES partners(id),
  statement_id TEXT NOT NULL,
  registration_id TEXT NOT NULL REFERENCES registrations(id),
  fingerprint TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (partner_id, statement_id)
);
CREATE INDEX xapi_statements_registration ON xapi_statements (registration_id);
