DROP TRIGGER IF EXISTS `history_search_insert`;
--> statement-breakpoint
INSERT INTO `meta` (`key`, `value`)
VALUES ('searchIndexedThroughId', CAST(coalesce((
	SELECT max(`id`) FROM (SELECT max(`id`) AS `id` FROM `history` UNION ALL SELECT max(`id`) FROM `history_archive`)
), 0) AS TEXT))
ON CONFLICT (`key`) DO UPDATE SET `value` = excluded.`value`;
