CREATE TABLE `admin_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_tokens_token_hash_unique` ON `admin_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `admin_tokens_workspace_idx` ON `admin_tokens` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `bot_events` (
	`id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`integration_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`message_id` text,
	`type` text NOT NULL,
	`direction` text NOT NULL,
	`payload` text NOT NULL,
	`preview` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bot_events_conversation_idx` ON `bot_events` (`integration_id`,`conversation_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `bots` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`handler` text NOT NULL,
	`tags` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deployed_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bots_workspace_created_idx` ON `bots` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bots_workspace_updated_idx` ON `bots` (`workspace_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE TABLE `chat_integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`encryption_key` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_integrations_webhook_id_unique` ON `chat_integrations` (`webhook_id`);--> statement-breakpoint
CREATE INDEX `chat_integrations_bot_idx` ON `chat_integrations` (`bot_id`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`owner_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversations_owner_idx` ON `conversations` (`integration_id`,`owner_id`);--> statement-breakpoint
CREATE INDEX `conversations_created_idx` ON `conversations` (`integration_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`user_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_page_idx` ON `events` (`integration_id`,`conversation_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `events_user_idx` ON `events` (`integration_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `messages` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`payload` text NOT NULL,
	`metadata` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`user_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_page_idx` ON `messages` (`integration_id`,`conversation_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_user_idx` ON `messages` (`integration_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `participants` (
	`integration_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`join_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `conversation_id`, `user_id`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`user_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `participants_page_idx` ON `participants` (`integration_id`,`conversation_id`,`created_at`,`join_id`);--> statement-breakpoint
CREATE INDEX `participants_user_idx` ON `participants` (`integration_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text,
	`picture_url` text,
	`profile` text,
	`is_bot` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
