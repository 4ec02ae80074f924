CREATE TABLE `task_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` integer NOT NULL,
	`chat_id` integer NOT NULL,
	`due_at` integer NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`outcome` text NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `task_runs_task_idx` ON `task_runs` (`task_id`,`id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` integer NOT NULL,
	`thread_id` integer,
	`created_by_chat` integer NOT NULL,
	`created_by_user` integer,
	`prompt` text NOT NULL,
	`run_at` integer,
	`cron` text,
	`timezone` text NOT NULL,
	`status` text NOT NULL,
	`next_run_at` integer,
	`last_run_at` integer,
	`last_outcome` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tasks_chat_status_idx` ON `tasks` (`chat_id`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_due_idx` ON `tasks` (`chat_id`,`thread_id`,`status`,`next_run_at`);