import { Layout } from "../layout.tsx";

export interface HealthView {
  ok: boolean;
  missing: string[];
  problems: string[];
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
      <p class="hint">
        The same report as <code>GET /health</code>: names only, never values.
      </p>
    </Layout>
  );
}
