CREATE TABLE "admin_tokens" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"workspace_id" text COLLATE "C" NOT NULL,
	"token_hash" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "admin_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "bot_deliveries" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"bot_id" text COLLATE "C" NOT NULL,
	"integration_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"event" json NOT NULL,
	"message_id" text COLLATE "C",
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"leased_until" text COLLATE "C",
	CONSTRAINT "bot_deliveries_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "bot_events" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"bot_id" text COLLATE "C" NOT NULL,
	"integration_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"message_id" text COLLATE "C",
	"type" text COLLATE "C" NOT NULL,
	"direction" text COLLATE "C" NOT NULL,
	"payload" json NOT NULL,
	"preview" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bot_logs" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"bot_id" text COLLATE "C" NOT NULL,
	"timestamp" text COLLATE "C" NOT NULL,
	"level" text COLLATE "C" NOT NULL,
	"message" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C",
	"user_id" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "bot_states" (
	"bot_id" text COLLATE "C" NOT NULL,
	"scope" text COLLATE "C" NOT NULL,
	"scope_id" text COLLATE "C" NOT NULL,
	"value" json NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "bot_states_bot_id_scope_scope_id_pk" PRIMARY KEY("bot_id","scope","scope_id")
);
--> statement-breakpoint
CREATE TABLE "bots" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"workspace_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"handler" text COLLATE "C" NOT NULL,
	"tags" json NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL,
	"deployed_at" text COLLATE "C",
	"url" text COLLATE "C",
	"signing_secret" text COLLATE "C",
	"previous_signing_secret" text COLLATE "C",
	"previous_signing_secret_expires_at" text COLLATE "C",
	"gone_url" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "chat_integrations" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"bot_id" text COLLATE "C" NOT NULL,
	"webhook_id" text COLLATE "C" NOT NULL,
	"encryption_key" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "chat_integrations_webhook_id_unique" UNIQUE("webhook_id")
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"owner_id" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "conversations_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"payload" json NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "events_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"payload" json NOT NULL,
	"metadata" json,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "messages_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
CREATE TABLE "participants" (
	"integration_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"join_id" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "participants_integration_id_conversation_id_user_id_pk" PRIMARY KEY("integration_id","conversation_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C",
	"picture_url" text COLLATE "C",
	"profile" text COLLATE "C",
	"is_bot" boolean DEFAULT false NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "users_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admin_tokens" ADD CONSTRAINT "admin_tokens_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_deliveries" ADD CONSTRAINT "bot_deliveries_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_deliveries" ADD CONSTRAINT "bot_deliveries_integration_id_chat_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."chat_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_deliveries" ADD CONSTRAINT "bot_deliveries_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_events" ADD CONSTRAINT "bot_events_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_events" ADD CONSTRAINT "bot_events_integration_id_chat_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."chat_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_logs" ADD CONSTRAINT "bot_logs_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_states" ADD CONSTRAINT "bot_states_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bots" ADD CONSTRAINT "bots_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_integrations" ADD CONSTRAINT "chat_integrations_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_integration_id_chat_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."chat_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_integration_id_owner_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","owner_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_integration_id_user_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","user_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_integration_id_user_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","user_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "participants" ADD CONSTRAINT "participants_integration_id_user_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","user_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_integration_id_chat_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."chat_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_tokens_workspace_idx" ON "admin_tokens" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "bot_deliveries_conversation_idx" ON "bot_deliveries" USING btree ("integration_id","conversation_id","seq");--> statement-breakpoint
CREATE INDEX "bot_deliveries_due_idx" ON "bot_deliveries" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "bot_events_conversation_idx" ON "bot_events" USING btree ("integration_id","conversation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "bot_logs_bot_time_idx" ON "bot_logs" USING btree ("bot_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "bots_workspace_created_idx" ON "bots" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "bots_workspace_updated_idx" ON "bots" USING btree ("workspace_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "chat_integrations_bot_idx" ON "chat_integrations" USING btree ("bot_id");--> statement-breakpoint
CREATE INDEX "conversations_owner_idx" ON "conversations" USING btree ("integration_id","owner_id");--> statement-breakpoint
CREATE INDEX "conversations_created_idx" ON "conversations" USING btree ("integration_id","created_at","id");--> statement-breakpoint
CREATE INDEX "events_page_idx" ON "events" USING btree ("integration_id","conversation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "events_user_idx" ON "events" USING btree ("integration_id","user_id");--> statement-breakpoint
CREATE INDEX "messages_page_idx" ON "messages" USING btree ("integration_id","conversation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_user_idx" ON "messages" USING btree ("integration_id","user_id");--> statement-breakpoint
CREATE INDEX "participants_page_idx" ON "participants" USING btree ("integration_id","conversation_id","created_at","join_id");--> statement-breakpoint
CREATE INDEX "participants_user_idx" ON "participants" USING btree ("integration_id","user_id");