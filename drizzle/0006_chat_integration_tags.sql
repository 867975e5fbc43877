ALTER TABLE `conversations` ADD `id_chosen` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `id_chosen` integer DEFAULT false NOT NULL;