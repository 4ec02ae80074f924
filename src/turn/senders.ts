import type { ChatAccess } from "../access/chat-access.ts";

/**
 * A turn answers one or more people's messages, and acts with the least privilege among them: a non-admin cannot
 * borrow an admin's rights by having their request answered together with an admin's "ok".
 */
export function sendersAreAdmins(access: ChatAccess, senders: readonly number[]): boolean {
  return senders.length > 0 && senders.every((id) => access.isAdmin(id));
}

/** Who the turn acts for (recorded as a task's creator): the first sender who is not an admin, else the last one. */
export function actingUser(access: ChatAccess, senders: readonly number[]): number | undefined {
  return senders.find((id) => !access.isAdmin(id)) ?? senders.at(-1);
}
