-- Partners, accounts, learning instances, registrations and OAuth token bookkeeping.
CREATE TABLE partners (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  client_id TEXT NOT NULL UNIQUE,
  client_secret_hash TEXT NOT NULL,
  admin_account_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  external_user_id TEXT NOT NULL,
  -- JSON array of entitlement names; NULL when the account has none
  entitlements TEXT,
  disabled_at INTEGER,
  created_at INTEGER NOT NULL
);
-- Never released, not even by disabling: external_user_id is unique per partner forever.
CREATE UNIQUE INDEX accounts_partner_external ON accounts (partner_id, external_user_id);

CREATE TABLE learning_instances (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  graph_id TEXT NOT NULL,
  name TEXT NOT NULL,
  start_date TEXT,
  end_date TEXT,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX learning_instances_partner ON learning_instances (partner_id, created_at);

CREATE TABLE registrations (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  learning_instance_id TEXT NOT NULL REFERENCES learning_instances(id),
  type TEXT NOT NULL CHECK (type IN ('learner', 'instructor')),
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
);
-- One live registration per account and learning instance.
CREATE UNIQUE INDEX registrations_live_member ON registrations (learning_instance_id, account_id) WHERE deleted_at IS NULL;
CREATE INDEX registrations_account ON registrations (account_id);

-- Issued access tokens, so that disabling an account can revoke each live token in its TokenGate.
CREATE TABLE access_tokens (
  jti TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  expires_at INTEGER NOT NULL
);
CREATE INDEX access_tokens_account ON access_tokens (account_id, expires_at);

-- Refresh tokens are stored only as SHA-256 digests; a used one is spent for good.
CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
