DROP INDEX "bot_events_created_idx";--> statement-breakpoint
DROP INDEX "bot_logs_time_idx";--> statement-breakpoint
DROP INDEX "events_created_idx";--> statement-breakpoint
DROP INDEX "messages_created_idx";