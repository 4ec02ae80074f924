import { includes } from "../config/id-list.ts";
import type { Settings } from "../config/settings.ts";
import { type AccessRecord, isAdminIn } from "./access-store.ts";

/**
 * Who counts as what, for one batch of a chat's work: the environment's lists and what pairing stored (read once
 * per batch, from the cached access record).
 */
export class ChatAccess {
  constructor(
    private readonly settings: Settings,
    private readonly record: AccessRecord,
  ) {}

  /** ADMIN_USER_IDS, or the owner stored by pairing. */
  isAdmin(userId: number | undefined): boolean {
    return isAdminIn(this.settings, this.record, userId);
  }

  /** ALLOWED_CHAT_IDS, or a chat approved by pairing. */
  isChatAllowed(chatId: number): boolean {
    return includes(this.settings.allowedChats, chatId) || String(chatId) in this.record.chats;
  }

  /**
   * Whether this person may summon the bot as a guest in a chat it is not in (GUEST_MODE): nobody (off), the bot's
   * admins (admins), or also whoever's private chat may talk to the bot, listed or paired (known).
   */
  maySummon(userId: number): boolean {
    switch (this.settings.guestMode) {
      case "off":
        return false;
      case "admins":
        return this.isAdmin(userId);
      case "known":
        return this.isAdmin(userId) || this.isChatAllowed(userId);
    }
  }

  /** ADMIN_CHAT_IDS: a chat where an admin's turn may act on other allowed chats. */
  isAdminChat(chatId: number): boolean {
    return includes(this.settings.adminChatIds, chatId);
  }
}
