CREATE TABLE "deleted_users" (
	"integration_id" text COLLATE "C" NOT NULL,
	"user_digest" text COLLATE "C" NOT NULL,
	"deleted_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "deleted_users_integration_id_user_digest_pk" PRIMARY KEY("integration_id","user_digest")
);
--> statement-breakpoint
ALTER TABLE "deleted_users" ADD CONSTRAINT "deleted_users_integration_id_chat_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."chat_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bot_events_user_idx" ON "bot_events" USING btree ("integration_id","user_id");--> statement-breakpoint
CREATE INDEX "bot_events_created_idx" ON "bot_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "bot_logs_user_idx" ON "bot_logs" USING btree ("bot_id","user_id");--> statement-breakpoint
CREATE INDEX "bot_logs_conversation_idx" ON "bot_logs" USING btree ("bot_id","conversation_id");--> statement-breakpoint
CREATE INDEX "bot_logs_time_idx" ON "bot_logs" USING btree ("timestamp");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "messages_created_idx" ON "messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "users_created_idx" ON "users" USING btree ("integration_id","created_at","id");