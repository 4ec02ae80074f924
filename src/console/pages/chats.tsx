import type { ChatRow } from "../admin-client.ts";
import { formatTime, Layout } from "../layout.tsx";

export function ChatsPage(props: { chats: ChatRow[]; extraPages: { path: string; label: string }[] }) {
  return (
    <Layout title="Chats" current="/console/chats" signedIn extraPages={props.extraPages}>
      <h1>Chats</h1>
      {props.chats.length === 0 ? (
        <p>No chat has written to the bot yet, and none has a config.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Chat</th>
                <th>Type</th>
                <th>Provider / model</th>
                <th>Last activity</th>
                <th>Enabled</th>
              </tr>
            </thead>
            <tbody>
              {props.chats.map((chat) => (
                <tr>
                  <td>
                    <a href={`/console/chats/${chat.chatId}`}>{chat.title ?? `Chat ${chat.chatId}`}</a>
                    <div class="hint">{chat.chatId}</div>
                  </td>
                  <td>{chat.type ?? "—"}</td>
                  <td>
                    {chat.effective.provider} / <code>{chat.effective.model}</code>
                    {chat.invalid && <div class="error">stored config invalid: {chat.invalid}</div>}
                  </td>
                  <td>{formatTime(chat.lastActivityAt)}</td>
                  <td>{chat.effective.enabled ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}
