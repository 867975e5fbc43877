CREATE TABLE `conversation_signals` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`message_id` text,
	`type` text NOT NULL,
	`signal` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`user_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_signals_log_idx` ON `conversation_signals` (`integration_id`,`conversation_id`,`id`);--> statement-breakpoint
CREATE INDEX `conversation_signals_user_idx` ON `conversation_signals` (`integration_id`,`user_id`);