import type { Settings } from "./settings.ts";

/** A feature a deployment leaves off, and why, as /health and the console say it. */
export interface FeatureOff {
  feature: string;
  why: string;
}

/** What this deployment's bindings expose, as far as the features below depend on them. */
export interface DeployedBindings {
  media: boolean;
  historyVectors: boolean;
}

/**
 * The features off for this deployment's plan and bindings: not problems of the setup (`ok` stays true), a choice the
 * deploy made (`npm run deploy` prints the same list).
 */
export function featuresOff(settings: Settings, bindings: DeployedBindings): FeatureOff[] {
  const off: FeatureOff[] = [];
  if (settings.plan === "free" && settings.agentRunner.kind === "container") {
    off.push({
      feature: "agent sessions (claude-agent, codex-agent, /agent)",
      why: "they run in Cloudflare Containers, which need Workers Paid",
    });
  }
  if (!bindings.media) {
    off.push({
      feature: "kept originals of photos, voice notes and files",
      why: "no MEDIA bucket (R2 is not switched on for the account): files are read from Telegram again when a turn needs them, and generated images are sent but not kept",
    });
  }
  if (!bindings.historyVectors) {
    off.push({
      feature: "search by meaning in search_history",
      why: "no HISTORY_VECTORS index is bound: search is full-text (words), which works on every plan",
    });
  }
  return off;
}
