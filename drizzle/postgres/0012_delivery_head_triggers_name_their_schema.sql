-- The triggers that keep bot_delivery_heads (0007, 0009, 0011) ran with `SET search_path FROM
-- CURRENT`, so that a session naming the tables by schema would find the same: PostgreSQL then saves,
-- sets and restores the search_path around every call, and a plan cached for one search_path is
-- checked again under the next. They now name their tables in the schema they are made in (the one
-- the migrations run in), and run as any function does. Measured under a createMessage load (32
-- connections to one conversation, alternated runs on one database, docs/internals/performance.md):
-- 50-90 µs less PostgreSQL CPU per delivery inserted.
--
-- An insert behind the head shares the head row in one statement where it took two: the row is
-- locked only when its committed version is older than the new delivery (the filter is applied
-- before the lock, and again on the version the lock finds), so that an insert that is to become
-- the head still upserts it without holding it shared first (0011).
DO $migration$
BEGIN
  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION bot_delivery_heads_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Behind the head: share its row, which a removal that would leave nothing queued waits for.
  PERFORM 1 FROM %1$I.bot_delivery_heads
  WHERE integration_id = NEW.integration_id AND conversation_id = NEW.conversation_id AND seq < NEW.seq FOR KEY SHARE;
  IF FOUND THEN RETURN NULL; END IF;
  INSERT INTO %1$I.bot_delivery_heads AS h (integration_id, conversation_id, seq, bot_id, next_attempt_at, leased_until)
  VALUES (NEW.integration_id, NEW.conversation_id, NEW.seq, NEW.bot_id, NEW.next_attempt_at, NEW.leased_until)
  ON CONFLICT (integration_id, conversation_id) DO UPDATE
    SET seq = excluded.seq, bot_id = excluded.bot_id, next_attempt_at = excluded.next_attempt_at, leased_until = excluded.leased_until
    WHERE h.seq > excluded.seq AND h.leased_until IS NULL;
  RETURN NULL;
END $$
$fn$, current_schema());

  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION bot_delivery_heads_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE %1$I.bot_delivery_heads SET next_attempt_at = NEW.next_attempt_at, leased_until = NEW.leased_until
  WHERE integration_id = NEW.integration_id AND conversation_id = NEW.conversation_id AND seq = NEW.seq;
  RETURN NULL;
END $$
$fn$, current_schema());

  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION bot_delivery_heads_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head bigint;
  next %1$I.bot_deliveries%%ROWTYPE;
BEGIN
  SELECT seq INTO head FROM %1$I.bot_delivery_heads
  WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id FOR NO KEY UPDATE;
  IF NOT FOUND OR head <> OLD.seq THEN RETURN NULL; END IF;
  SELECT * INTO next FROM %1$I.bot_deliveries
  WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id ORDER BY seq LIMIT 1;
  IF NOT FOUND THEN
    -- The last one: wait for the inserts under way, and look again at what they committed.
    PERFORM 1 FROM %1$I.bot_delivery_heads
    WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id FOR UPDATE;
    SELECT * INTO next FROM %1$I.bot_deliveries
    WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id ORDER BY seq LIMIT 1;
  END IF;
  IF NOT FOUND THEN
    DELETE FROM %1$I.bot_delivery_heads WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id;
  ELSE
    UPDATE %1$I.bot_delivery_heads
    SET seq = next.seq, bot_id = next.bot_id, next_attempt_at = next.next_attempt_at, leased_until = next.leased_until
    WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id;
  END IF;
  RETURN NULL;
END $$
$fn$, current_schema());
END $migration$;
