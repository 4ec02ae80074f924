import { errorText } from "./errors.ts";
import { redactSecrets } from "./redact.ts";

/**
 * Runs work whose failure must not fail the caller's (a courtesy call to Telegram, a side write, a cleanup): a
 * failure is logged, redacted, under `label`, and answered with false. True when the work went through.
 */
export async function bestEffort(label: string, work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    console.warn(`${label} failed: ${redactSecrets(errorText(error))}`);
    return false;
  }
}
