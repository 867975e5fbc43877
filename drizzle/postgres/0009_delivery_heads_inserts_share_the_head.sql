-- A delivery inserted behind its conversation's head takes the head row with a shared lock (FOR KEY
-- SHARE), where its upsert took it for update: each createMessage of a busy conversation held the row
-- until its commit (its WAL flush), so that the conversation's messages committed one at a time. The
-- inserts behind a head now share it; a removal of the head (FOR UPDATE, bot_delivery_heads_on_delete)
-- still waits for the inserts under way, and they for it, so that the next head it picks sees them.
-- A delivery with no head yet, or ahead of the head (committed after a later one), upserts as before.
CREATE OR REPLACE FUNCTION bot_delivery_heads_on_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  head bigint;
BEGIN
  SELECT seq INTO head FROM bot_delivery_heads
  WHERE integration_id = NEW.integration_id AND conversation_id = NEW.conversation_id FOR KEY SHARE;
  IF FOUND AND head < NEW.seq THEN RETURN NULL; END IF;
  INSERT INTO bot_delivery_heads AS h (integration_id, conversation_id, seq, bot_id, next_attempt_at, leased_until)
  VALUES (NEW.integration_id, NEW.conversation_id, NEW.seq, NEW.bot_id, NEW.next_attempt_at, NEW.leased_until)
  ON CONFLICT (integration_id, conversation_id) DO UPDATE
    SET seq = excluded.seq, bot_id = excluded.bot_id, next_attempt_at = excluded.next_attempt_at, leased_until = excluded.leased_until
    WHERE h.seq > excluded.seq AND h.leased_until IS NULL;
  RETURN NULL;
END $$;
