import { choice, url } from "../knob.ts";

const group = "Deployment and development";

export const DEPLOYMENT_KNOBS = {
  WORKERS_PLAN: choice(
    {
      kind: "variable",
      group,
      description:
        "the account's Workers plan, written by `npm run deploy`: on `free` the bot keeps within Free's limits per invocation (50 subrequests, 10 ms CPU) and leaves off what Free cannot run (the agent container); `/health` and the console say what is off and why",
    },
    ["paid", "free"],
    "paid",
  ),
  PLAYGROUND_URL: url({
    kind: "variable",
    group,
    description:
      "dev only, set by `npm run dev` without a bot token: its local Bot API stand-in, which the console's Playground page talks to; leave empty deployed",
  }),
} as const;
