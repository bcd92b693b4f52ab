-- Account-level analytics (docs/analytics.md): per (account, graph), the merge of the projection
-- messages every registration of the account on the graph publishes through the projections queue.
CREATE TABLE account_projections (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  graph_id TEXT NOT NULL REFERENCES graphs(id),
  -- the AccountGraphProjection (src/analytics/projection.ts) as canonical JSON
  body TEXT NOT NULL,
  -- incremented by every write: the consumer's compare-and-set
  revision INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (graph_id, account_id)
);

-- Queue messages that exhausted their retries, recorded by the dead-letter queues' consumer
-- (docs/analytics.md "Lost and poisoned messages"): `npm run --silent dead-letters -- list` shows
-- them, `... replay` sets replay_requested_at, and the Worker's scheduled handler sends those back to
-- their queue and deletes them.
CREATE TABLE dead_letters (
  id TEXT PRIMARY KEY,
  -- the queue the message was meant for (not the dead-letter queue)
  queue TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  replay_requested_at INTEGER
);
CREATE INDEX dead_letters_queue ON dead_letters (queue, received_at);
