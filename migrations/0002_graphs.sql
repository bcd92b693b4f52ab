-- Knowledge graphs (decisions.md "Knowledge graphs"): one row per graph, one per version, and the
-- stored forms of each version in chunks (a D1 value is limited to about 2 MB).
CREATE TABLE graphs (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  -- the partner's gref- label, unique per partner and immutable
  label TEXT NOT NULL,
  -- name and version of the latest version
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX graphs_partner_label ON graphs (partner_id, label);
CREATE INDEX graphs_partner_created ON graphs (partner_id, created_at);

CREATE TABLE graph_versions (
  graph_id TEXT NOT NULL REFERENCES graphs(id),
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  -- JSON object: learning_objectives, prerequisites, modules, ... (GraphCounts)
  counts TEXT NOT NULL,
  -- number of graph_blobs parts of each kind
  document_parts INTEGER NOT NULL,
  runtime_parts INTEGER NOT NULL,
  -- RuntimeGraph.format of the stored runtime form
  runtime_format INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (graph_id, version)
);

-- 'document': the GET /v0/graphs/{id} body of that version (document + id, version, module uuids);
-- 'runtime': the RuntimeGraph in its stored column encoding (src/graphs/runtime-codec.ts). Each kind is one JSON text cut into parts of at most 512 Ki characters.
CREATE TABLE graph_blobs (
  graph_id TEXT NOT NULL REFERENCES graphs(id),
  version INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('document', 'runtime')),
  part INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (graph_id, version, kind, part)
);

-- The graph a learning instance teaches, resolved at creation (graph_id keeps what the caller sent).
ALTER TABLE learning_instances ADD COLUMN graph_uuid TEXT;
