-- The full-text index is brought up to date when it is read (a search, the vector index's catch-up), not by a trigger
-- on every history insert: that trigger (JSON extraction, porter tokenizing and an FTS5 segment per transaction) was
-- about a twentieth of a plain turn's CPU, for an index most turns never read. `searchIndexedThroughId` in `meta`
-- says how far it reaches; everything written so far was indexed by the trigger. The archive triggers stay: a row
-- moved to the archive keeps its entry, and one deleted for good takes its entry (if it had one) with it.
DROP TRIGGER `history_search_insert`;
--> statement-breakpoint
INSERT INTO `meta` (`key`, `value`)
VALUES ('searchIndexedThroughId', CAST(coalesce((
	SELECT max(`id`) FROM (SELECT max(`id`) AS `id` FROM `history` UNION ALL SELECT max(`id`) FROM `history_archive`)
), 0) AS TEXT))
ON CONFLICT (`key`) DO UPDATE SET `value` = excluded.`value`;
