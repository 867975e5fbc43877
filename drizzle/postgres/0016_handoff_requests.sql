CREATE TABLE "handoff_requests" (
	"integration_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"description" text COLLATE "C",
	"message_history" json,
	"requested_at" text COLLATE "C" NOT NULL,
	"first_reply_at" text COLLATE "C",
	CONSTRAINT "handoff_requests_integration_id_conversation_id_pk" PRIMARY KEY("integration_id","conversation_id")
);
--> statement-breakpoint
ALTER TABLE "handoff_requests" ADD CONSTRAINT "handoff_requests_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;