CREATE TABLE `usage_buffer` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`record` text NOT NULL,
	`created_at` integer NOT NULL
);
