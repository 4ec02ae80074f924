-- recall's full-text index over remembered facts (SQLite FTS5, ranked by BM25), an external-content index of
-- `memories`: it stores no second copy of the text, and triggers keep it in step with every insert, update and
-- delete. Queries join back to `memories` and filter by chat_id, so a chat never sees another's facts (BM25's word
-- statistics are shared across chats, which only shifts scores).
-- Note: `wrangler d1 export` refuses a database that holds an FTS5 table (cloudflare/workers-sdk#6305); see README.
CREATE VIRTUAL TABLE `memories_search` USING fts5(
	`content`,
	content = 'memories',
	content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `memories_search_insert` AFTER INSERT ON `memories` BEGIN
	INSERT INTO `memories_search` (rowid, `content`) VALUES (new.`id`, new.`content`);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_search_delete` AFTER DELETE ON `memories` BEGIN
	INSERT INTO `memories_search` (`memories_search`, rowid, `content`) VALUES ('delete', old.`id`, old.`content`);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_search_update` AFTER UPDATE ON `memories` BEGIN
	INSERT INTO `memories_search` (`memories_search`, rowid, `content`) VALUES ('delete', old.`id`, old.`content`);
	INSERT INTO `memories_search` (rowid, `content`) VALUES (new.`id`, new.`content`);
END;
--> statement-breakpoint
INSERT INTO `memories_search` (`memories_search`) VALUES ('rebuild');
