-- Item (module) parameters of the learner model per graph, refined online from every graded answer
-- (the model-updates queue consumer), read by the RegistrationObjects.
CREATE TABLE item_params (
  graph_id TEXT NOT NULL REFERENCES graphs(id),
  -- module partner label (mref-...)
  module TEXT NOT NULL,
  easiness REAL NOT NULL,
  difficulty REAL NOT NULL,
  observations INTEGER NOT NULL,
  shift REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (graph_id, module)
);

-- Queue messages already applied: delivery is at least once, application exactly once.
CREATE TABLE applied_model_updates (
  message_id TEXT PRIMARY KEY,
  applied_at INTEGER NOT NULL
);
