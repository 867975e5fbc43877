CREATE TABLE "conversation_signals" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"message_id" text COLLATE "C",
	"type" text COLLATE "C" NOT NULL,
	"signal" json NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "conversation_signals_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
ALTER TABLE "conversation_signals" ADD CONSTRAINT "conversation_signals_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_signals" ADD CONSTRAINT "conversation_signals_integration_id_user_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","user_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_signals_log_idx" ON "conversation_signals" USING btree ("integration_id","conversation_id","id");--> statement-breakpoint
CREATE INDEX "conversation_signals_user_idx" ON "conversation_signals" USING btree ("integration_id","user_id");