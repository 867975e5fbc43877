ALTER TABLE "conversations" ADD COLUMN "id_chosen" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "id_chosen" boolean DEFAULT false NOT NULL;