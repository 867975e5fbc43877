CREATE TABLE "bot_delivery_heads" (
	"integration_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"seq" bigint NOT NULL,
	"bot_id" text COLLATE "C" NOT NULL,
	"next_attempt_at" text COLLATE "C" NOT NULL,
	"leased_until" text COLLATE "C",
	"due_at" text COLLATE "C" GENERATED ALWAYS AS (greatest(next_attempt_at, coalesce(leased_until, ''))) STORED NOT NULL,
	CONSTRAINT "bot_delivery_heads_integration_id_conversation_id_pk" PRIMARY KEY("integration_id","conversation_id")
);
--> statement-breakpoint
CREATE INDEX "bot_delivery_heads_due_idx" ON "bot_delivery_heads" USING btree ("due_at","seq");