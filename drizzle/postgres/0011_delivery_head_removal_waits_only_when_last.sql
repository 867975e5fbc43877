-- The removal of a conversation's head waits for the deliveries being inserted behind it (0009: their
-- FOR KEY SHARE against its FOR UPDATE) only when it finds no other delivery to make the head: then
-- it must see them, or leave the conversation without a head while one of them is queued. When it
-- finds one, it moves the head there with a lock the inserts share (FOR NO KEY UPDATE), and the
-- conversation's users' messages are no longer held, until its commit, behind every settlement of
-- the bot's answers.
CREATE OR REPLACE FUNCTION bot_delivery_heads_on_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  head bigint;
  next bot_deliveries%ROWTYPE;
BEGIN
  SELECT seq INTO head FROM bot_delivery_heads
  WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id FOR NO KEY UPDATE;
  IF NOT FOUND OR head <> OLD.seq THEN RETURN NULL; END IF;
  SELECT * INTO next FROM bot_deliveries
  WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id ORDER BY seq LIMIT 1;
  IF NOT FOUND THEN
    -- The last one: wait for the inserts under way, and look again at what they committed.
    PERFORM 1 FROM bot_delivery_heads
    WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id FOR UPDATE;
    SELECT * INTO next FROM bot_deliveries
    WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id ORDER BY seq LIMIT 1;
  END IF;
  IF NOT FOUND THEN
    DELETE FROM bot_delivery_heads WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id;
  ELSE
    UPDATE bot_delivery_heads
    SET seq = next.seq, bot_id = next.bot_id, next_attempt_at = next.next_attempt_at, leased_until = next.leased_until
    WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An insert that is to become the head (none yet, or the head is a later delivery) upserts it
-- without holding the head row shared first: a removal of the last delivery, holding the row and
-- waiting for the shared holders, would otherwise wait for it while it waits for the removal (a
-- deadlock). It is seen by then, or sees the removal's end, as in 0009.
CREATE OR REPLACE FUNCTION bot_delivery_heads_on_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  head bigint;
BEGIN
  SELECT seq INTO head FROM bot_delivery_heads
  WHERE integration_id = NEW.integration_id AND conversation_id = NEW.conversation_id;
  IF FOUND AND head < NEW.seq THEN
    -- Behind the head: share its row, which a removal that would leave nothing queued waits for.
    SELECT seq INTO head FROM bot_delivery_heads
    WHERE integration_id = NEW.integration_id AND conversation_id = NEW.conversation_id FOR KEY SHARE;
    IF FOUND AND head < NEW.seq THEN RETURN NULL; END IF;
  END IF;
  INSERT INTO bot_delivery_heads AS h (integration_id, conversation_id, seq, bot_id, next_attempt_at, leased_until)
  VALUES (NEW.integration_id, NEW.conversation_id, NEW.seq, NEW.bot_id, NEW.next_attempt_at, NEW.leased_until)
  ON CONFLICT (integration_id, conversation_id) DO UPDATE
    SET seq = excluded.seq, bot_id = excluded.bot_id, next_attempt_at = excluded.next_attempt_at, leased_until = excluded.leased_until
    WHERE h.seq > excluded.seq AND h.leased_until IS NULL;
  RETURN NULL;
END $$;
