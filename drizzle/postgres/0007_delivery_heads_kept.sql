-- bot_delivery_heads holds each conversation's oldest queued delivery (src/db/postgres/schema.ts),
-- kept by these triggers in the transaction that changes the outbox, whatever statement does it
-- (an insert, a settlement, a cascade from a deleted conversation or bot). Each function locks the
-- conversation's head row first, so that a delivery inserted while the head is being removed is
-- seen (READ COMMITTED: each statement after the lock reads what committed meanwhile). They run
-- with the search_path they were made with: a session naming the tables by schema finds the same.
CREATE FUNCTION bot_delivery_heads_on_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  -- A delivery committed after a later one of its conversation (concurrent writes) becomes the head
  -- again while that one is not taken yet: the conversation keeps its order.
  INSERT INTO bot_delivery_heads AS h (integration_id, conversation_id, seq, bot_id, next_attempt_at, leased_until)
  VALUES (NEW.integration_id, NEW.conversation_id, NEW.seq, NEW.bot_id, NEW.next_attempt_at, NEW.leased_until)
  ON CONFLICT (integration_id, conversation_id) DO UPDATE
    SET seq = excluded.seq, bot_id = excluded.bot_id, next_attempt_at = excluded.next_attempt_at, leased_until = excluded.leased_until
    WHERE h.seq > excluded.seq AND h.leased_until IS NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION bot_delivery_heads_on_update() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE bot_delivery_heads SET next_attempt_at = NEW.next_attempt_at, leased_until = NEW.leased_until
  WHERE integration_id = NEW.integration_id AND conversation_id = NEW.conversation_id AND seq = NEW.seq;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION bot_delivery_heads_on_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  head bigint;
  next bot_deliveries%ROWTYPE;
BEGIN
  SELECT seq INTO head FROM bot_delivery_heads
  WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id FOR UPDATE;
  IF NOT FOUND OR head <> OLD.seq THEN RETURN NULL; END IF;
  SELECT * INTO next FROM bot_deliveries
  WHERE integration_id = OLD.integration_id AND conversation_id = OLD.conversation_id ORDER BY seq LIMIT 1;
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
CREATE TRIGGER bot_delivery_heads_insert AFTER INSERT ON bot_deliveries FOR EACH ROW EXECUTE FUNCTION bot_delivery_heads_on_insert();
--> statement-breakpoint
CREATE TRIGGER bot_delivery_heads_update AFTER UPDATE OF next_attempt_at, leased_until ON bot_deliveries FOR EACH ROW EXECUTE FUNCTION bot_delivery_heads_on_update();
--> statement-breakpoint
CREATE TRIGGER bot_delivery_heads_delete AFTER DELETE ON bot_deliveries FOR EACH ROW EXECUTE FUNCTION bot_delivery_heads_on_delete();
--> statement-breakpoint
INSERT INTO bot_delivery_heads (integration_id, conversation_id, seq, bot_id, next_attempt_at, leased_until)
SELECT DISTINCT ON (integration_id, conversation_id) integration_id, conversation_id, seq, bot_id, next_attempt_at, leased_until
FROM bot_deliveries ORDER BY integration_id, conversation_id, seq;
