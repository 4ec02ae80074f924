import type { MemoryRow, PersonRow } from "../admin-client.ts";
import { formatTime, Layout, Notice } from "../layout.tsx";

type ExtraPages = { path: string; label: string }[];

/** `/console/people`: the people the bot keeps facts about. */
export function PeoplePage(props: { people: PersonRow[]; notice?: string; extraPages: ExtraPages }) {
  return (
    <Layout title="People" current="/console/people" signedIn extraPages={props.extraPages}>
      <h1>People</h1>
      <Notice text={props.notice} />
      <p class="hint">
        What each person told the bot about themselves. A fact said in a private chat, or marked private, is used only
        where the rule allows (see the README's Security model); a group's facts are on each chat's memory page.
      </p>
      {props.people.length === 0 ? (
        <p>The bot keeps no facts about anyone yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Person (user id)</th>
                <th>Facts</th>
                <th>Newest</th>
              </tr>
            </thead>
            <tbody>
              {props.people.map((person) => (
                <tr>
                  <td>
                    <a href={`/console/people/${person.userId}`}>{person.userId}</a>
                  </td>
                  <td>{person.facts}</td>
                  <td>{formatTime(person.lastAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

/** `/console/people/:userId`: everything kept about one person, with forget, export and delete. */
export function PersonPage(props: {
  userId: number;
  memories: MemoryRow[];
  notice?: { text: string; bad: boolean };
  extraPages: ExtraPages;
}) {
  const base = `/console/people/${props.userId}`;
  return (
    <Layout title={`Person ${props.userId}`} current="/console/people" signedIn extraPages={props.extraPages}>
      <h1>Person {props.userId}</h1>
      <Notice text={props.notice?.text} bad={props.notice?.bad ?? false} />
      <h2>What the bot keeps about them</h2>
      <MemoryTable memories={props.memories} forgetAction={(id) => `${base}/memories/${id}/forget`} />
      <h2>Their data</h2>
      <p>
        <a href={`${base}/export`}>Download everything kept about them (JSON)</a>: their facts, the messages they wrote
        in their private chat, their files' keys.
      </p>
      <form method="post" action={`${base}/delete`}>
        <label for="confirm">Delete all of it: type the user id to confirm</label>
        <input id="confirm" name="confirm" inputmode="numeric" autocomplete="off" />
        <p>
          <button type="submit">Delete everything about {props.userId}</button>
        </p>
      </form>
    </Layout>
  );
}

/** `/console/chats/:chatId/memories`: every fact said in one chat. */
export function ChatMemoriesPage(props: {
  chatId: number;
  memories: MemoryRow[];
  notice?: { text: string; bad: boolean };
  extraPages: ExtraPages;
}) {
  return (
    <Layout title={`Memories of ${props.chatId}`} current="/console/chats" signedIn extraPages={props.extraPages}>
      <h1>
        Memories said in <a href={`/console/chats/${props.chatId}`}>chat {props.chatId}</a>
      </h1>
      <Notice text={props.notice?.text} bad={props.notice?.bad ?? false} />
      <MemoryTable
        memories={props.memories}
        forgetAction={(id) => `/console/chats/${props.chatId}/memories/${id}/forget`}
      />
    </Layout>
  );
}

function MemoryTable(props: { memories: MemoryRow[]; forgetAction: (id: number) => string }) {
  if (props.memories.length === 0) return <p>Nothing is kept.</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>Fact</th>
            <th>Whose · where said</th>
            <th>When</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {props.memories.map((memory) => (
            <tr>
              <td>{memory.id}</td>
              <td>
                {memory.content}
                {memory.outside && <div class="hint">written after reading {memory.outside}</div>}
                {memory.mergedFrom && <div class="hint">merged from {memory.mergedFrom}</div>}
              </td>
              <td>
                {memory.aboutUser === null ? (
                  "the chat's"
                ) : (
                  <a href={`/console/people/${memory.aboutUser}`}>person {memory.aboutUser}</a>
                )}
                {" · "}
                <a href={`/console/chats/${memory.chatId}/memories`}>{memory.chatId}</a>
                {memory.private && <div class="hint">private: only where it was said</div>}
              </td>
              <td>{formatTime(Date.parse(memory.createdAt))}</td>
              <td>
                <form method="post" action={props.forgetAction(memory.id)} class="inline">
                  <button type="submit" class="quiet">
                    Forget
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
