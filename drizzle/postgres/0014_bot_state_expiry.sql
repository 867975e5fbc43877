ALTER TABLE "bot_states" ADD COLUMN "expiries" json;--> statement-breakpoint
ALTER TABLE "bot_states" ADD COLUMN "expires_at" text COLLATE "C";--> statement-breakpoint
CREATE INDEX "bot_states_expires_idx" ON "bot_states" USING btree ("expires_at");