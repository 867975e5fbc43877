-- The removal of a conversation's head waits for the deliveries being inserted behind it (0009: their
-- FOR KEY SHARE against its FOR UPDATE) only when it finds no other delivery to make the head: then
-- it must see them, or leave the conversation without a head while one of them is queued. When it
-- finds one, it moves the head there with a lock the inserts share (FOR NO KEY UPDATE), and the
-- conversation's users' messages are no longer held, until its commit, behind every settlement of
-- the bot's answers. One race now ends in a deadlock where it waited: a delivery inserted with a seq
-- below the head's (its insert began before the head's and commits after it is taken) while the
-- removal finds nothing else queued; PostgreSQL breaks it (deadlock_timeout) and the unit that loses
-- is run again (store.ts retries 40P01).
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
