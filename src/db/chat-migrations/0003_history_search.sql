-- Every row deleted from `history` (pruning past HISTORY_MAX_STORED, /new) moves to `history_archive` first, by
-- trigger, so no code path can lose the past; only the retention deletes archived rows (src/compaction/history-upkeep.ts).
--
-- search_history's full-text index (SQLite FTS5, ranked by BM25) over the chat's whole history, live and archived.
-- It keeps its own copy of each message's searchable text (the words of user and assistant messages, a voice note's
-- transcript, a file's name), its role, its time and its provenance mark (`outside`: what outside content the turn
-- that wrote it had read, so that reading it back marks the reading turn too); the row id is the history row's. Triggers keep it in step with
-- every write: a new history row is indexed, a row moved to the archive stays indexed, and an archived row deleted
-- for good takes its entry with it. Tool calls and tool results are not indexed.
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
