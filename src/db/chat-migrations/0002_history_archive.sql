CREATE TABLE `history_archive` (
	`id` integer PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`message` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `history_archive_created_idx` ON `history_archive` (`created_at`);