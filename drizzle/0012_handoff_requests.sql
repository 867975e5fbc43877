CREATE TABLE `handoff_requests` (
	`integration_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`description` text,
	`message_history` text,
	`requested_at` text NOT NULL,
	`first_reply_at` text,
	PRIMARY KEY(`integration_id`, `conversation_id`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
