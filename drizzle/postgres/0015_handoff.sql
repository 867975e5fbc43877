CREATE TABLE "agents" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"workspace_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"role" text COLLATE "C" DEFAULT 'agent' NOT NULL,
	"key_hash" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "agents_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "conversation_notes" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"agent_id" text COLLATE "C" NOT NULL,
	"text" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "conversation_notes_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "handled_by" text COLLATE "C" DEFAULT 'bot' NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "agent_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "handoff_title" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "handoff_at" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agents_workspace_created_idx" ON "agents" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "conversation_notes_page_idx" ON "conversation_notes" USING btree ("integration_id","conversation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "conversations_handoff_idx" ON "conversations" USING btree ("handled_by","handoff_at");