ALTER TABLE `usage_records` ADD `source` text;--> statement-breakpoint
CREATE UNIQUE INDEX `usage_records_source_unique` ON `usage_records` (`source`);