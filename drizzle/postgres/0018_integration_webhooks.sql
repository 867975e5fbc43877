CREATE TABLE "conversation_tags" (
	"integration_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"value" text COLLATE "C" NOT NULL,
	CONSTRAINT "conversation_tags_integration_id_conversation_id_key_pk" PRIMARY KEY("integration_id","conversation_id","key")
);
--> statement-breakpoint
CREATE TABLE "integration_webhook_deliveries" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"integration_id" text COLLATE "C" NOT NULL,
	"signal" json NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"leased_until" text COLLATE "C",
	CONSTRAINT "integration_webhook_deliveries_id_unique" UNIQUE("id")
);
--> statement-breakpoint
ALTER TABLE "chat_integrations" ADD COLUMN "webhook_url" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "chat_integrations" ADD COLUMN "webhook_secret" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "conversation_tags" ADD CONSTRAINT "conversation_tags_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_webhook_deliveries" ADD CONSTRAINT "integration_webhook_deliveries_integration_id_chat_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."chat_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_tags_values_idx" ON "conversation_tags" USING btree ("integration_id","key","value");--> statement-breakpoint
CREATE INDEX "integration_webhook_deliveries_order_idx" ON "integration_webhook_deliveries" USING btree ("integration_id","seq");