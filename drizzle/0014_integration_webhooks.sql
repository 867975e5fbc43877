CREATE TABLE `conversation_tags` (
	`integration_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`integration_id`, `conversation_id`, `key`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_tags_values_idx` ON `conversation_tags` (`integration_id`,`key`,`value`);--> statement-breakpoint
CREATE TABLE `integration_webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`integration_id` text NOT NULL,
	`signal` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`created_at` text NOT NULL,
	`leased_until` text,
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `integration_webhook_deliveries_id_unique` ON `integration_webhook_deliveries` (`id`);--> statement-breakpoint
CREATE INDEX `integration_webhook_deliveries_order_idx` ON `integration_webhook_deliveries` (`integration_id`,`seq`);--> statement-breakpoint
ALTER TABLE `chat_integrations` ADD `webhook_url` text;--> statement-breakpoint
ALTER TABLE `chat_integrations` ADD `webhook_secret` text;