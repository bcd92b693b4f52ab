-- Issue 11 "Reliability and security" (decisions.md "Input hygiene and token housekeeping").

-- The access token issued together with each refresh token: the refresh grant that spends the
-- refresh token retires that access token (revoked in its TokenGate). NULL for pairs issued before.
ALTER TABLE refresh_tokens ADD COLUMN access_jti TEXT;

-- A learning instance being deleted accepts no new registrations or goals, even concurrently: the
-- database refuses the insert when the instance is not live at the moment the row is written
-- (SQLite runs writes one at a time, so an insert either lands before the delete's batch, which
-- then marks it deleted too, or after it and is refused). The services map the refusal to 404.
CREATE TRIGGER registrations_need_live_instance
BEFORE INSERT ON registrations
WHEN NOT EXISTS (SELECT 1 FROM learning_instances WHERE id = NEW.learning_instance_id AND deleted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'learning_instance_not_live');
END;

CREATE TRIGGER goals_need_live_instance
BEFORE INSERT ON goals
WHEN NOT EXISTS (SELECT 1 FROM learning_instances WHERE id = NEW.learning_instance_id AND deleted_at IS NULL)
BEGIN
  SELECT RAISE(ABORT, 'learning_instance_not_live');
END;
