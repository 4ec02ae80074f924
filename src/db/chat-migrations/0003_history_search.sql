CREATE TRIGGER `history_archive_on_delete` BEFORE DELETE ON `history`
BEGIN
	INSERT OR IGNORE INTO `history_archive` (`id`, `role`, `message`, `created_at`)
	VALUES (old.`id`, old.`role`, old.`message`, old.`created_at`);
END;
