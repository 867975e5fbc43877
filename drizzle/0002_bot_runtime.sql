CREATE TABLE `bot_api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`note` text,
	`key_hash` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bot_api_keys_key_hash_unique` ON `bot_api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `bot_api_keys_bot_idx` ON `bot_api_keys` (`bot_id`);--> statement-breakpoint
ALTER TABLE `bots` ADD `protocol` text DEFAULT 'webhook' NOT NULL;