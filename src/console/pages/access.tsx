import type { AccessView } from "../admin-client.ts";
import { formatTime, Layout, Notice } from "../layout.tsx";

export function AccessPage(props: {
  access: AccessView;
  notice?: { text: string; bad: boolean };
  extraPages: { path: string; label: string }[];
}) {
  const { access } = props;
  const listed = (ids: number[] | "*") => (ids === "*" ? "everyone (*)" : ids.length === 0 ? "none" : ids.join(", "));
  return (
    <Layout title="Access" current="/console/access" signedIn extraPages={props.extraPages}>
      <h1>Access</h1>
      <Notice text={props.notice?.text} bad={props.notice?.bad ?? false} />
      <h2>Waiting for approval</h2>
      {access.pending.length === 0 ? (
        <p>
          No chat is waiting. A chat that is not allowed is told to send <code>/pair</code>; its code shows up here for
          ten minutes.
        </p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Code</th>
                <th>Chat</th>
                <th>Asked by</th>
                <th>Expires</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {access.pending.map((pairing) => (
                <tr data-code={pairing.code}>
                  <td>
                    <code>{pairing.code}</code>
                  </td>
                  <td>
                    {pairing.title ?? `Chat ${pairing.chatId}`}{" "}
                    <span class="hint">
                      ({pairing.type}, {pairing.chatId})
                    </span>
                  </td>
                  <td>{pairing.userName ?? "—"}</td>
                  <td>{formatTime(pairing.expiresAt)}</td>
                  <td>
                    <form method="post" action={`/console/access/pairings/${pairing.code}/approve`}>
                      <button type="submit">Approve</button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Approved by pairing</h2>
      {access.chats.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Chat</th>
                <th>Approved</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {access.chats.map((chat) => (
                <tr data-chat={String(chat.chatId)}>
                  <td>
                    <a href={`/console/chats/${chat.chatId}`}>{chat.title ?? `Chat ${chat.chatId}`}</a>{" "}
                    <span class="hint">({chat.chatId})</span>
                  </td>
                  <td>
                    {formatTime(chat.approvedAt)} <span class="hint">by {chat.approvedBy}</span>
                  </td>
                  <td>
                    <form method="post" action={`/console/access/chats/${chat.chatId}/revoke`}>
                      <button type="submit" class="quiet">
                        Revoke
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Admins stored by pairing</h2>
      {access.admins.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {access.admins.map((admin) => (
            <li>
              {admin.name ?? "User"}{" "}
              <span class="hint">
                ({admin.userId}, since {formatTime(admin.since)})
              </span>
              <form class="inline" method="post" action={`/console/access/admins/${admin.userId}/remove`}>
                {" "}
                <button type="submit" class="quiet">
                  Remove
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <h2>From the configuration</h2>
      <p>
        <code>ALLOWED_CHAT_IDS</code>: {listed(access.allowedChatIds)}
        <br />
        <code>ADMIN_USER_IDS</code>: {listed(access.adminUserIds)}
      </p>
      <p class="hint">
        These are set in wrangler.toml and change with a deploy. A revoked chat is refused within about a minute
        everywhere (KV and each Worker's 30-second cache).
      </p>
    </Layout>
  );
}
