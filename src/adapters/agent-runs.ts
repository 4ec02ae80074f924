/** What the container's model proxy saw one run's model calls cost. */
export interface ProxyUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * What a run may spend before its model calls are refused: what is left of the chat's daily budget when it starts,
 * in tokens and dollars (priced by its model), so that a running agent stops when its chat crosses the budget.
 */
export interface RunAllowance {
  maxTokens?: number;
  maxCostUsd?: number;
  /** US dollars per million tokens of the run's model (without one, only tokens are limited). */
  price?: { input: number; output: number };
}

/** A run as the ledger closed it: what its model calls cost, and whether it was stopped at its allowance. */
export interface ClosedRun {
  usage: ProxyUsage;
  overBudget: boolean;
}

/**
 * One chat's agent container, as an agent adapter uses it (the `AgentContainer` object in production): the runner
 * behind it, and its ledger of open runs, whose tokens open the model proxy while they are open.
 */
export interface AgentContainerHandle {
  fetch(request: Request): Promise<Response>;
  /** Before a run starts: its model calls may go through the proxy, pinned to `model`, until `closeRun`. */
  openRun(runKey: string, model: string, allowance: RunAllowance): Promise<void>;
  /** The run is over: its token opens nothing any more. Returns what its model calls cost, as the proxy saw it. */
  closeRun(runKey: string): Promise<ClosedRun | undefined>;
}

/** The agent container of a chat (by its key), or undefined where no container binding exists. */
export type AgentContainers = (chatKey: string) => AgentContainerHandle | undefined;
