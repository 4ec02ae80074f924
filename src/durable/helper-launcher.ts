import type { Env } from "../env.ts";
import type { HelperLauncher } from "../turn/chat-context.ts";

/** The helpers' objects, one each, named by a fresh unique id (the chat keeps it to stop or find its helper). */
export function helperLauncherOf(env: Env): HelperLauncher {
  const stub = (id: string) => env.HELPER_SESSION.get(env.HELPER_SESSION.idFromString(id));
  return {
    newId: () => env.HELPER_SESSION.newUniqueId().toString(),
    start: (job) => stub(job.id).start(job),
    stop: (id) => stub(id).stop(),
  };
}
