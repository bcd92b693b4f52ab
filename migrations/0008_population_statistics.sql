-- The population statistics a graph's knowledge-tracing rates are estimated from (src/tracing/
-- estimate.ts, docs/recommendation.md "Estimation"): sums of every registration's latest reading of
-- its evidence, kept by the model-updates consumer with additive upserts (a registration sends the
-- difference to what it sent before). Anonymous sums only: no registration id is stored.

-- Per item (module label): expected answers given knowing the objective or not, and right among them.
CREATE TABLE population_items (
  graph_id TEXT NOT NULL REFERENCES graphs(id),
  item TEXT NOT NULL,
  objective TEXT NOT NULL,
  known REAL NOT NULL,
  known_right REAL NOT NULL,
  unknown REAL NOT NULL,
  unknown_right REAL NOT NULL,
  PRIMARY KEY (graph_id, item)
);

-- Per objective (label): episodes and how many started known; learning opportunities and learnings.
CREATE TABLE population_objectives (
  graph_id TEXT NOT NULL REFERENCES graphs(id),
  objective TEXT NOT NULL,
  episodes REAL NOT NULL,
  known_at_start REAL NOT NULL,
  learn_opportunities REAL NOT NULL,
  learnings REAL NOT NULL,
  teach_opportunities REAL NOT NULL,
  teachings REAL NOT NULL,
  PRIMARY KEY (graph_id, objective)
);

-- Per graph: the learners' speed spread sums and the statistics' version (one more per applied batch).
CREATE TABLE population_graphs (
  graph_id TEXT PRIMARY KEY REFERENCES graphs(id),
  version INTEGER NOT NULL,
  learners REAL NOT NULL,
  log_squares REAL NOT NULL,
  updated_at INTEGER NOT NULL
);
