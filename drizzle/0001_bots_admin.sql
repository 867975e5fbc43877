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
CREATE TABLE `bot_signing_secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bot_signing_secrets_bot_idx` ON `bot_signing_secrets` (`bot_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `bots` ADD `url` text;--> statement-breakpoint
-- Bots made before signing secrets existed get one. SQLite has no base64: the hex text of 24 random
-- bytes is itself valid base64 (48 characters of its alphabet), the key it decodes to holding those 192 random bits.
INSERT INTO `bot_signing_secrets` (`id`, `bot_id`, `secret`, `created_at`, `expires_at`)
SELECT `id`, `id`, 'whsec_' || lower(hex(randomblob(24))), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), NULL FROM `bots`;
