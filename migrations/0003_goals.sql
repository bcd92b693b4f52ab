-- Scoped goals of learning instances and their assignment to registrations.
CREATE TABLE goals (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners(id),
  learning_instance_id TEXT NOT NULL REFERENCES learning_instances(id),
  -- 'objective' (lref- targets) or 'module' (mref- targets); immutable
  target_kind TEXT NOT NULL CHECK (target_kind IN ('objective', 'module')),
  -- practice | introduce | review; immutable
  adaptive_behavior TEXT NOT NULL,
  -- the goal as the API echoes it (defaults filled), JSON, without id/timestamps
  body TEXT NOT NULL,
  -- resolved scope, so later readers need not load the graph: graph uuid and version it was resolved on,
  -- and JSON arrays of labels (target objectives, in-scope objectives, recommendable atoms)
  graph_uuid TEXT NOT NULL,
  graph_version INTEGER NOT NULL,
  target_objectives TEXT NOT NULL,
  scope_objectives TEXT NOT NULL,
  scope_modules TEXT NOT NULL,
  -- absolute deadline (ISO UTC) when timing.end is given, else NULL
  end_at TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX goals_instance ON goals (learning_instance_id, created_at);

CREATE TABLE goal_assignments (
  goal_id TEXT NOT NULL REFERENCES goals(id),
  registration_id TEXT NOT NULL REFERENCES registrations(id),
  assigned_at INTEGER NOT NULL,
  PRIMARY KEY (goal_id, registration_id)
);
CREATE INDEX goal_assignments_registration ON goal_assignments (registration_id);
