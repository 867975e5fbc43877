ALTER TABLE `bot_states` ADD `expiries` text;--> statement-breakpoint
ALTER TABLE `bot_states` ADD `expires_at` text;--> statement-breakpoint
CREATE INDEX `bot_states_expires_idx` ON `bot_states` (`expires_at`);