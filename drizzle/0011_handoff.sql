CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`role` text DEFAULT 'agent' NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_key_hash_unique` ON `agents` (`key_hash`);--> statement-breakpoint
CREATE INDEX `agents_workspace_created_idx` ON `agents` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `conversation_notes` (
	`integration_id` text NOT NULL,
	`id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`text` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`integration_id`, `id`),
	FOREIGN KEY (`integration_id`,`conversation_id`) REFERENCES `conversations`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_notes_page_idx` ON `conversation_notes` (`integration_id`,`conversation_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `handled_by` text DEFAULT 'bot' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `agent_id` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `handoff_title` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `handoff_at` text;--> statement-breakpoint
CREATE INDEX `conversations_handoff_idx` ON `conversations` (`handled_by`,`handoff_at`);