-- People's memories beside the chat's: `about_user` is the person a fact is about (null: the chat's own fact), `private`
-- keeps it in the chat it was said in, `merged_from` records what consolidation merged into it. See src/memory/visibility.ts.
ALTER TABLE `memories` ADD `about_user` integer;--> statement-breakpoint
ALTER TABLE `memories` ADD `private` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `memories` ADD `merged_from` text;--> statement-breakpoint
CREATE INDEX `memories_about_user_idx` ON `memories` (`about_user`,`id`);