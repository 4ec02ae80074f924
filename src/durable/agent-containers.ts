import { getContainer } from "@cloudflare/containers";
import type { AgentContainers } from "../adapters/agent-runs.ts";
import type { Env } from "../env.ts";
import type { RunLedger } from "./model-proxy-admission.ts";

/** Each chat's agent container by its chat key (one container per chat), or none without the binding. */
export function agentContainersOf(env: Env): AgentContainers {
  return (chatKey) => (env.AGENT_CONTAINER ? getContainer(env.AGENT_CONTAINER, chatKey) : undefined);
}

/** The open runs of a chat's container, through its object: what the model proxy checks each call against. */
export function containerLedger(env: Env, chatKey: string): RunLedger {
  const stub = () => {
    const binding = env.AGENT_CONTAINER;
    if (!binding) throw new Error("no AGENT_CONTAINER binding");
    return binding.get(binding.idFromName(chatKey));
  };
  return {
    admit: (runKey, hold) => stub().admitModelCall(runKey, hold),
    record: (runKey, usage, holdId) => stub().recordUsage(runKey, usage, holdId),
  };
}
