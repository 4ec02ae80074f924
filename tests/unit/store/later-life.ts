import { ChatStores } from "../../../src/store/chat-stores.ts";
import { type InboxEntry, inboxCodec } from "../../../src/turn/inbox-entries.ts";

/**
 * The stores of a later life of a chat's object, over the same storage: its database is not new, so they know nothing
 * of what it holds until they read it (a new object's stores know their tables empty, see ChatStores.migrate).
 */
export async function laterLife(storage: DurableObjectStorage): Promise<ChatStores<InboxEntry>> {
  const stores = new ChatStores(storage, inboxCodec);
  await stores.migrate();
  return stores;
}
