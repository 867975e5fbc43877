CREATE TABLE `deleted_users` (
	`integration_id` text NOT NULL,
	`user_digest` text NOT NULL,
	`deleted_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `user_digest`),
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bot_events_user_idx` ON `bot_events` (`integration_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `bot_events_created_idx` ON `bot_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `bot_logs_user_idx` ON `bot_logs` (`bot_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `bot_logs_conversation_idx` ON `bot_logs` (`bot_id`,`conversation_id`);--> statement-breakpoint
CREATE INDEX `bot_logs_time_idx` ON `bot_logs` (`timestamp`);--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);--> statement-breakpoint
CREATE INDEX `messages_created_idx` ON `messages` (`created_at`);--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`integration_id`,`created_at`,`id`);