import type { Manifest } from "./manifest.ts";

/** The README.md of a fixture's folder: which release made it, how, and what it holds. */
export function fixtureReadme(manifest: Manifest, files: { file: string; bytes: number }[], subject: string): string {
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  const chats = Object.entries(manifest.chats)
    .map(([name, chat]) => `${name} ${chat.chatId}${chat.threadId === undefined ? "" : ` (topic ${chat.threadId})`}`)
    .join(", ");
  return `# Upgrade fixture: ${manifest.release}

The storage of release ${manifest.release} as \`wrangler dev --local\` left it.

- commit: \`${manifest.commit}\` (${subject})
- recorded: ${manifest.recordedAt}
- by: \`npx node scripts/upgrade-fixtures/record.ts ${manifest.commit.slice(0, 7)} ${manifest.release}\`, which ran that
  commit in a temporary git worktree against the fakes (tests/fakes/) and drove it through its webhook and admin API
  (scripts/upgrade-fixtures/scenario.ts).

\`tests/node/upgrade.test.ts\` starts the current code on a copy of it and checks that nothing was lost. Do not edit
these files: record them again instead (the friend's task is due three minutes after a recording, so the test waits
for it in those minutes).

What it holds (\`manifest.json\` lists the texts and what the release reported):

- chats: ${chats}; D1's chat directory has them;
- history in each chat's Durable Object: a photo (in R2), a \`remember\` call and its result, two \`schedule_task\`
  calls, a group's dozen turns folded into a summary by its Anthropic model;
- a memory (D1), the owner's tasks (a one-shot in 2099, a weekly cron) and the friend's one-shot due three minutes
  after the recording ended (it runs when the upgraded code starts);
- per-chat configs in KV (the group's on Anthropic with limits, budget, fallbacks and tools; the topic's model);
- a bot skill and a group skill (D1); the owner paired with the setup code and the friend by \`/pair\` (KV);
- usage rows in D1 and, from the last turns, in the objects' buffers;
- the owner's last answer waiting in the outbox (Telegram was down), and a topic message whose model call was cut
  off by the shutdown (its inbox row taken, the alarm set).

Files (${(total / 1024).toFixed(0)} KiB; SQLite databases vacuumed, write-ahead logs folded in):

${files.map((file) => `- \`${file.file}\`: ${(file.bytes / 1024).toFixed(1)} KiB`).join("\n")}
`;
}
