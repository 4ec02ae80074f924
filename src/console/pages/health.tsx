import { formatTime, Layout } from "../layout.tsx";

export interface HealthView {
  ok: boolean;
  plan: "free" | "paid";
  off: { feature: string; why: string }[];
  missing: string[];
  problems: string[];
  waitingForTelegram?: { chats: number; messages: number; oldestAt: number };
}

export function HealthPage(props: { health: HealthView; extraPages: { path: string; label: string }[] }) {
  const { health } = props;
  return (
    <Layout title="Health" current="/console/health" signedIn extraPages={props.extraPages}>
      <h1>Health</h1>
      <p class={health.ok ? "notice" : "notice bad"} data-health={health.ok ? "ok" : "not-ok"}>
        {health.ok ? "✅ Everything the bot needs is set." : "⚠️ The bot is missing something."}
      </p>
      <h2>Missing variables</h2>
      {health.missing.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {health.missing.map((name) => (
            <li>
              <code>{name}</code>
            </li>
          ))}
        </ul>
      )}
      <h2>Problems</h2>
      {health.problems.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {health.problems.map((problem) => (
            <li>{problem}</li>
          ))}
        </ul>
      )}
      <h2>Plan and what is off</h2>
      <p data-plan={health.plan}>
        Workers {health.plan === "free" ? "Free" : "Paid"}.{" "}
        {health.off.length === 0 ? "Everything is on." : "Off for this deployment (a choice, not a problem):"}
      </p>
      {health.off.length > 0 && (
        <ul>
          {health.off.map((item) => (
            <li data-off={item.feature}>
              <strong>{item.feature}</strong>: {item.why}
            </li>
          ))}
        </ul>
      )}
      {health.waitingForTelegram && (
        <>
          <h2>Waiting for Telegram</h2>
          <p class="notice bad" data-waiting-for-telegram={health.waitingForTelegram.messages}>
            ⏳ {health.waitingForTelegram.messages} {health.waitingForTelegram.messages === 1 ? "message" : "messages"}{" "}
            in {health.waitingForTelegram.chats} {health.waitingForTelegram.chats === 1 ? "chat" : "chats"} wait for
            Telegram, the oldest since {formatTime(health.waitingForTelegram.oldestAt)} (each chat's page has its own
            count).
          </p>
        </>
      )}
      <p class="hint">
        The same report as <code>GET /health</code>: names only, never values.
      </p>
    </Layout>
  );
}
