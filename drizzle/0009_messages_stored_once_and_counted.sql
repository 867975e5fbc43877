CREATE TABLE `user_storage` (
	`integration_id` text NOT NULL,
	`user_id` text NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`integration_id`, `user_id`),
	FOREIGN KEY (`integration_id`,`user_id`) REFERENCES `users`(`integration_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_bot_events` (
	`id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`integration_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`message_id` text,
	`type` text NOT NULL,
	`direction` text NOT NULL,
	`payload` text,
	`preview` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`integration_id`) REFERENCES `chat_integrations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_bot_events`("id", "bot_id", "integration_id", "conversation_id", "user_id", "message_id", "type", "direction", "payload", "preview", "created_at") SELECT "id", "bot_id", "integration_id", "conversation_id", "user_id", "message_id", "type", "direction", "payload", "preview", "created_at" FROM `bot_events`;--> statement-breakpoint
DROP TABLE `bot_events`;--> statement-breakpoint
ALTER TABLE `__new_bot_events` RENAME TO `bot_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `bot_events_conversation_idx` ON `bot_events` (`integration_id`,`conversation_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bot_events_user_idx` ON `bot_events` (`integration_id`,`user_id`);--> statement-breakpoint
-- A message is stored once: its bot events and its pending delivery refer to it (message_id) instead
-- of repeating its payload and preview, which are read from the message when they are needed.
UPDATE `bot_events` SET `payload` = NULL, `preview` = NULL WHERE `message_id` IS NOT NULL;--> statement-breakpoint
UPDATE `bot_deliveries` SET `event` = json_remove(`event`, '$.payload', '$.preview') WHERE `message_id` IS NOT NULL;--> statement-breakpoint
-- Each user's stored bytes (messages' payload and metadata, custom events' payload, as stored JSON),
-- counted once here and kept by the triggers below whichever statement writes or deletes the rows.
INSERT INTO `user_storage` (`integration_id`, `user_id`, `bytes`)
SELECT `integration_id`, `user_id`, sum(`b`) FROM (
  SELECT `integration_id`, `user_id`, length(CAST(`payload` AS BLOB)) + coalesce(length(CAST(`metadata` AS BLOB)), 0) AS `b` FROM `messages`
  UNION ALL
  SELECT `integration_id`, `user_id`, length(CAST(`payload` AS BLOB)) FROM `events`
) GROUP BY `integration_id`, `user_id`;--> statement-breakpoint
CREATE TRIGGER `messages_stored_bytes_insert` AFTER INSERT ON `messages` BEGIN
  INSERT INTO `user_storage` (`integration_id`, `user_id`, `bytes`)
  VALUES (NEW.`integration_id`, NEW.`user_id`, length(CAST(NEW.`payload` AS BLOB)) + coalesce(length(CAST(NEW.`metadata` AS BLOB)), 0))
  ON CONFLICT (`integration_id`, `user_id`) DO UPDATE SET `bytes` = `bytes` + excluded.`bytes`;
END;--> statement-breakpoint
CREATE TRIGGER `messages_stored_bytes_update` AFTER UPDATE OF `payload`, `metadata` ON `messages` BEGIN
  UPDATE `user_storage`
  SET `bytes` = `bytes` + length(CAST(NEW.`payload` AS BLOB)) + coalesce(length(CAST(NEW.`metadata` AS BLOB)), 0)
    - length(CAST(OLD.`payload` AS BLOB)) - coalesce(length(CAST(OLD.`metadata` AS BLOB)), 0)
  WHERE `integration_id` = NEW.`integration_id` AND `user_id` = NEW.`user_id`;
END;--> statement-breakpoint
CREATE TRIGGER `messages_stored_bytes_delete` AFTER DELETE ON `messages` BEGIN
  UPDATE `user_storage`
  SET `bytes` = `bytes` - length(CAST(OLD.`payload` AS BLOB)) - coalesce(length(CAST(OLD.`metadata` AS BLOB)), 0)
  WHERE `integration_id` = OLD.`integration_id` AND `user_id` = OLD.`user_id`;
END;--> statement-breakpoint
CREATE TRIGGER `events_stored_bytes_insert` AFTER INSERT ON `events` BEGIN
  INSERT INTO `user_storage` (`integration_id`, `user_id`, `bytes`)
  VALUES (NEW.`integration_id`, NEW.`user_id`, length(CAST(NEW.`payload` AS BLOB)))
  ON CONFLICT (`integration_id`, `user_id`) DO UPDATE SET `bytes` = `bytes` + excluded.`bytes`;
END;--> statement-breakpoint
CREATE TRIGGER `events_stored_bytes_delete` AFTER DELETE ON `events` BEGIN
  UPDATE `user_storage` SET `bytes` = `bytes` - length(CAST(OLD.`payload` AS BLOB))
  WHERE `integration_id` = OLD.`integration_id` AND `user_id` = OLD.`user_id`;
END;
