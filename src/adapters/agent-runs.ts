/** What the container's model proxy saw one run's model calls cost. */
export interface ProxyUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * One chat's agent container, as an agent adapter uses it (the `AgentContainer` object in production): the runner
 * behind it, and its ledger of open runs, whose tokens open the model proxy while they are open.
 */
export interface AgentContainerHandle {
  fetch(request: Request): Promise<Response>;
  /** Before a run starts: its model calls may go through the proxy, pinned to `model`, until `closeRun`. */
  openRun(runKey: string, model: string): Promise<void>;
  /** The run is over: its token opens nothing any more. Returns what its model calls cost, as the proxy saw it. */
  closeRun(runKey: string): Promise<ProxyUsage | undefined>;
}

/** The agent container of a chat (by its key), or undefined where no container binding exists. */
export type AgentContainers = (chatKey: string) => AgentContainerHandle | undefined;
