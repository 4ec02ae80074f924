CREATE VIRTUAL TABLE `history_search` USING fts5(
	`text`,
	`role` UNINDEXED,
	`created_at` UNINDEXED,
	`outside` UNINDEXED,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `history_search_insert` AFTER INSERT ON `history`
WHEN new.`role` IN ('user', 'assistant') AND json_valid(new.`message`)
BEGIN
	INSERT INTO `history_search` (rowid, `text`, `role`, `created_at`, `outside`)
	SELECT new.`id`, `body`, new.`role`, new.`created_at`, json_extract(new.`message`, '$.outside') FROM (
		SELECT trim(
			coalesce(json_extract(new.`message`, '$.content'), '') || char(10) || coalesce((
				SELECT group_concat(coalesce(json_extract(`value`, '$.text'), json_extract(`value`, '$.fileName')), char(10))
				FROM json_each(new.`message`, '$.attachments')
			), ''),
			char(32, 9, 10, 13)
		) AS `body`
	) WHERE `body` <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `history_archive_on_delete` BEFORE DELETE ON `history`
BEGIN
	INSERT OR IGNORE INTO `history_archive` (`id`, `role`, `message`, `created_at`)
	VALUES (old.`id`, old.`role`, old.`message`, old.`created_at`);
END;
--> statement-breakpoint
CREATE TRIGGER `history_search_forget_archived` AFTER DELETE ON `history_archive`
BEGIN
	DELETE FROM `history_search` WHERE rowid = old.`id`;
END;
--> statement-breakpoint
INSERT INTO `history_search` (rowid, `text`, `role`, `created_at`, `outside`)
SELECT `id`, `body`, `role`, `created_at`, `outside` FROM (
	SELECT `id`, `role`, `created_at`, json_extract(`message`, '$.outside') AS `outside`, trim(
		coalesce(json_extract(`message`, '$.content'), '') || char(10) || coalesce((
			SELECT group_concat(coalesce(json_extract(`value`, '$.text'), json_extract(`value`, '$.fileName')), char(10))
			FROM json_each(`history`.`message`, '$.attachments')
		), ''),
		char(32, 9, 10, 13)
	) AS `body`
	FROM `history` WHERE `role` IN ('user', 'assistant') AND json_valid(`message`)
) WHERE `body` <> '';
