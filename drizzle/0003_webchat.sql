CREATE TABLE `files` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`user_id` text NOT NULL,
	`conversation_id` text,
	`key` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`uploaded_at` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`,`user_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `files_user_idx` ON `files` (`integration_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `files_conversation_idx` ON `files` (`integration_id`,`conversation_id`);--> statement-breakpoint
ALTER TABLE `messages` ADD `feedback` text;