-- The blocked rate estimated from the population (src/tracing/estimate.ts, docs/recommendation.md
-- "Estimation"): per objective, the expected episodes that could have been blocked (the prerequisites
-- known, the objective not known at the start) and the expected blocked ones among them, the
-- learner's speed integrated out. Sums kept as the other population statistics are (additive
-- upserts); rows written before this migration start at 0.
ALTER TABLE population_objectives ADD COLUMN blocked_trials REAL NOT NULL DEFAULT 0;
ALTER TABLE population_objectives ADD COLUMN blocked_episodes REAL NOT NULL DEFAULT 0;
