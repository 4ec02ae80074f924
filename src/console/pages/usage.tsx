import type { DailyUsage, UsageReport } from "../admin-client.ts";
import { formatCount, formatUsd, Layout } from "../layout.tsx";
import { UsageChart } from "../usage-chart.tsx";

export function UsageSection(props: { daily: DailyUsage; report: UsageReport; now: number }) {
  return (
    <>
      <h2>Tokens per day</h2>
      <UsageChart usage={props.daily} metric="tokens" until={props.now} />
      <h2>Cost per day</h2>
      <UsageChart usage={props.daily} metric="cost" until={props.now} />
      <h2>Per model, in total</h2>
      {props.report.perModel.length === 0 ? (
        <p>No model calls recorded yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Provider / model</th>
                <th>Turns</th>
                <th>Input tokens</th>
                <th>Output tokens</th>
                <th>Tool calls</th>
                <th>Cost</th>
              </tr>
            </thead>
            <tbody>
              {props.report.perModel.map((row) => (
                <tr>
                  <td>
                    {row.provider} / <code>{row.model}</code>
                  </td>
                  <td>{formatCount(row.turns)}</td>
                  <td>{formatCount(row.inputTokens)}</td>
                  <td>{formatCount(row.outputTokens)}</td>
                  <td>{formatCount(row.toolCalls)}</td>
                  <td>{formatUsd(row.costUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function UsagePage(props: {
  daily: DailyUsage;
  report: UsageReport;
  now: number;
  extraPages: { path: string; label: string }[];
}) {
  return (
    <Layout title="Usage" current="/console/usage" signedIn extraPages={props.extraPages}>
      <h1>Usage, last 30 days</h1>
      <UsageSection daily={props.daily} report={props.report} now={props.now} />
      <h2>Per chat, in total</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Chat</th>
              <th>Turns</th>
              <th>Tokens</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {props.report.perChat.map((row) => (
              <tr>
                <td>
                  <a href={`/console/chats/${row.chatId}`}>{row.chatId}</a>
                </td>
                <td>{formatCount(row.turns)}</td>
                <td>{formatCount(row.inputTokens + row.outputTokens)}</td>
                <td>{formatUsd(row.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="hint">
        Days are UTC. Chat objects write usage in batches, so the newest turns may take up to USAGE_FLUSH_SECONDS to
        appear. Cost counts the models with a price in MODEL_PRICES.
      </p>
    </Layout>
  );
}
