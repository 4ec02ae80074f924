import type { Env as AppEnv } from "../src/env.ts";

declare module "*.sql" {
  const text: string;
  export default text;
}

declare global {
  namespace Cloudflare {
    // `cloudflare:workers`' env and the containers library see the bot's own Env.
    interface Env extends AppEnv {}
    interface GlobalProps {
      mainModule: typeof import("../src/worker.ts");
      durableNamespaces: "ChatSession" | "AgentContainer";
    }
  }
}
