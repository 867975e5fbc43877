CREATE TABLE "user_storage" (
	"integration_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "user_storage_integration_id_user_id_pk" PRIMARY KEY("integration_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "bot_events" ALTER COLUMN "payload" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "bot_events" ALTER COLUMN "preview" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "user_storage" ADD CONSTRAINT "user_storage_integration_id_user_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","user_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A message is stored once: its bot events and its pending delivery refer to it (message_id) instead
-- of repeating its payload and preview, which are read from the message when they are needed.
UPDATE "bot_events" SET "payload" = NULL, "preview" = NULL WHERE "message_id" IS NOT NULL;--> statement-breakpoint
UPDATE "bot_deliveries" SET "event" = ("event"::jsonb - 'payload' - 'preview')::json WHERE "message_id" IS NOT NULL;--> statement-breakpoint
-- Each user's stored bytes (messages' payload and metadata, custom events' payload, as stored JSON),
-- counted once here and kept by the triggers below whichever statement writes or deletes the rows.
INSERT INTO "user_storage" ("integration_id", "user_id", "bytes")
SELECT "integration_id", "user_id", sum("b") FROM (
  SELECT "integration_id", "user_id", octet_length("payload"::text) + coalesce(octet_length("metadata"::text), 0) AS "b" FROM "messages"
  UNION ALL
  SELECT "integration_id", "user_id", octet_length("payload"::text) FROM "events"
) AS "written" GROUP BY "integration_id", "user_id";--> statement-breakpoint
-- The functions name their table in the schema they are made in (see 0012).
DO $migration$
BEGIN
  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION user_storage_add(integration text, author text, delta bigint, first boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF first THEN
    INSERT INTO %1$I.user_storage AS s (integration_id, user_id, bytes) VALUES (integration, author, delta)
    ON CONFLICT (integration_id, user_id) DO UPDATE SET bytes = s.bytes + excluded.bytes;
  ELSIF delta <> 0 THEN
    UPDATE %1$I.user_storage SET bytes = bytes + delta WHERE integration_id = integration AND user_id = author;
  END IF;
END $$
$fn$, current_schema());
  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION messages_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM %1$I.user_storage_add(NEW.integration_id, NEW.user_id, octet_length(NEW.payload::text) + coalesce(octet_length(NEW.metadata::text), 0), true);
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM %1$I.user_storage_add(NEW.integration_id, NEW.user_id,
      octet_length(NEW.payload::text) + coalesce(octet_length(NEW.metadata::text), 0)
      - octet_length(OLD.payload::text) - coalesce(octet_length(OLD.metadata::text), 0), false);
  ELSE
    PERFORM %1$I.user_storage_add(OLD.integration_id, OLD.user_id, - octet_length(OLD.payload::text) - coalesce(octet_length(OLD.metadata::text), 0), false);
  END IF;
  RETURN NULL;
END $$
$fn$, current_schema());
  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION events_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM %1$I.user_storage_add(NEW.integration_id, NEW.user_id, octet_length(NEW.payload::text), true);
  ELSE
    PERFORM %1$I.user_storage_add(OLD.integration_id, OLD.user_id, - octet_length(OLD.payload::text), false);
  END IF;
  RETURN NULL;
END $$
$fn$, current_schema());
END
$migration$;--> statement-breakpoint
CREATE TRIGGER "messages_stored_bytes" AFTER INSERT OR DELETE OR UPDATE OF "payload", "metadata" ON "messages"
  FOR EACH ROW EXECUTE FUNCTION messages_stored_bytes();--> statement-breakpoint
CREATE TRIGGER "events_stored_bytes" AFTER INSERT OR DELETE ON "events"
  FOR EACH ROW EXECUTE FUNCTION events_stored_bytes();
