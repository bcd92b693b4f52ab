-- Every request does bounded work (docs/security.md "Limits"): a learning instance holds at most
-- 10,000 live registrations and 1,000 live scoped goals (INSTANCE_REGISTRATIONS_MAX and
-- INSTANCE_GOALS_MAX in src/schemas/limits.ts), which bounds every fan-out over a class (learners to
-- watch, assignment by registration type, deleting the instance). The database enforces them, so
-- concurrent inserts cannot pass a limit together; the services answer 422 naming the limit.
CREATE TRIGGER registrations_instance_limit
BEFORE INSERT ON registrations
WHEN (SELECT COUNT(*) FROM registrations WHERE learning_instance_id = NEW.learning_instance_id AND deleted_at IS NULL) >= 10000
BEGIN
  SELECT RAISE(ABORT, 'learning_instance_full');
END;

CREATE TRIGGER goals_instance_limit
BEFORE INSERT ON goals
WHEN (SELECT COUNT(*) FROM goals WHERE learning_instance_id = NEW.learning_instance_id AND deleted_at IS NULL) >= 1000
BEGIN
  SELECT RAISE(ABORT, 'learning_instance_full');
END;
