CREATE TABLE `chats` (
	`chat_id` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`title` text,
	`last_activity_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `chats_activity_idx` ON `chats` (`last_activity_at`);