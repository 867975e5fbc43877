CREATE TABLE "bot_api_keys" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"bot_id" text COLLATE "C" NOT NULL,
	"note" text COLLATE "C",
	"key_hash" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "bot_api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "file_bytes" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"integration_id" text COLLATE "C" NOT NULL,
	"bytes" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "files" (
	"integration_id" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"conversation_id" text COLLATE "C",
	"key" text COLLATE "C" NOT NULL,
	"content_type" text COLLATE "C" NOT NULL,
	"size" integer NOT NULL,
	"uploaded_at" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "files_integration_id_id_pk" PRIMARY KEY("integration_id","id")
);
--> statement-breakpoint
ALTER TABLE "bots" ADD COLUMN "protocol" text COLLATE "C" DEFAULT 'webhook' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "feedback" json;--> statement-breakpoint
ALTER TABLE "bot_api_keys" ADD CONSTRAINT "bot_api_keys_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_bytes" ADD CONSTRAINT "file_bytes_integration_id_id_files_integration_id_id_fk" FOREIGN KEY ("integration_id","id") REFERENCES "public"."files"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_integration_id_user_id_users_integration_id_id_fk" FOREIGN KEY ("integration_id","user_id") REFERENCES "public"."users"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_integration_id_conversation_id_conversations_integration_id_id_fk" FOREIGN KEY ("integration_id","conversation_id") REFERENCES "public"."conversations"("integration_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bot_api_keys_bot_idx" ON "bot_api_keys" USING btree ("bot_id");--> statement-breakpoint
CREATE INDEX "files_user_idx" ON "files" USING btree ("integration_id","user_id");--> statement-breakpoint
CREATE INDEX "files_conversation_idx" ON "files" USING btree ("integration_id","conversation_id");--> statement-breakpoint
CREATE INDEX "files_id_idx" ON "files" USING btree ("id");