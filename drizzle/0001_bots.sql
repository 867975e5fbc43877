CREATE TABLE `bot_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`bot_id` text NOT NULL,
	`integration_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`event` text NOT NULL,
	`message_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bot_deliveries_id_unique` ON `bot_deliveries` (`id`);--> statement-breakpoint
CREATE INDEX `bot_deliveries_conversation_idx` ON `bot_deliveries` (`integration_id`,`conversation_id`,`seq`);--> statement-breakpoint
CREATE INDEX `bot_deliveries_due_idx` ON `bot_deliveries` (`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `bot_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`timestamp` text NOT NULL,
	`level` text NOT NULL,
	`message` text NOT NULL,
	`conversation_id` text,
	`user_id` text,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bot_logs_bot_time_idx` ON `bot_logs` (`bot_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE TABLE `bot_states` (
	`bot_id` text NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`bot_id`, `scope`, `scope_id`),
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `bots` ADD `url` text;--> statement-breakpoint
ALTER TABLE `bots` ADD `signing_secret` text;--> statement-breakpoint
ALTER TABLE `bots` ADD `previous_signing_secret` text;--> statement-breakpoint
ALTER TABLE `bots` ADD `previous_signing_secret_expires_at` text;--> statement-breakpoint
ALTER TABLE `bots` ADD `gone_url` text;--> statement-breakpoint
-- Bots made before signing secrets existed get one. SQLite has no base64: the hex text of 24 random
-- bytes is itself valid base64 (48 characters of its alphabet), the key it decodes to holding those 192 random bits.
UPDATE `bots` SET `signing_secret` = 'whsec_' || lower(hex(randomblob(24))) WHERE `signing_secret` IS NULL;
