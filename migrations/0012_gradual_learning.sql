-- Learning along a curve (src/tracing/episode.ts, docs/recommendation.md "Reading the evidence"): per
-- item, the expected answers given in the partial state (counted for neither guess nor slip); per objective,
-- the expected learnings that went from not knowing it into knowing part of it, and those that went
-- straight into knowing it; their ratio is the objective's `gradual` share. Sums kept as the other
-- population statistics are (additive upserts); rows written before this migration start at 0.
ALTER TABLE population_items ADD COLUMN partial REAL NOT NULL DEFAULT 0;
ALTER TABLE population_objectives ADD COLUMN partial_entries REAL NOT NULL DEFAULT 0;
ALTER TABLE population_objectives ADD COLUMN direct_entries REAL NOT NULL DEFAULT 0;
