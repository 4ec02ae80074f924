import type { TestProject } from "vitest/node";
import { startFakes } from "./fakes/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    fakesUrl: string;
  }
}

/** One set of fake upstreams for the whole run; tests reset and script them through `/__control/*`. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fakes = await startFakes();
  project.provide("fakesUrl", fakes.url);
  return () => fakes.close();
}
