import type { HistoryMessage } from "../protocol/messages.ts";
import type { TurnTrust } from "./context.ts";

/**
 * The data-out rule. A tool "sends out" when it carries data the model chose to a place the model chose: a fetch of an
 * address it composed (the query and path are data), an MCP tool not declared read-only (its arguments reach the
 * server), a helper (its task is handed on). A turn that has read outside content may be steered by it, so:
 *
 * - a fetch of an address the turn was shown as it is (written by a person in the chat, or in a page or search result
 *   it read) runs: fetching it composes nothing;
 * - in an untrusted turn, a fetch of any other address with a query, or of any other address at all once the turn has
 *   read the chat's private data (its facts, its searched history), is held for the person's confirmation;
 * - in an untrusted turn, an MCP tool that is not declared read-only is held; a helper started by an untrusted turn
 *   that holds private data is held (a helper inherits both marks, and cannot ask, so it is refused there).
 *
 * Held means: the person is asked with a button (or, where nobody can be asked, the call is refused), and the model
 * is told why. What is left: choosing among links a page shows leaks a little (which one), never composed text.
 */
export type OutwardSend =
  | { kind: "fetch"; address: string }
  | { kind: "mcp"; server: string; tool: string; readOnly: boolean }
  | { kind: "helper"; task: string };

/** Why the call must wait for the person, in words for them and the model; undefined when it may run. */
export function outwardHold(trust: TurnTrust, send: OutwardSend): { action: string; source: string } | undefined {
  const outside = trust.untrustedSource;
  if (outside === undefined) return undefined;
  const held = () => ({ action: actionOf(send), source: sourceOf(outside, trust.privateSource) });
  switch (send.kind) {
    case "fetch": {
      const address = normalised(send.address);
      if (address === undefined || trust.wasShown(address)) return undefined;
      const hasQuery = new URL(address).search !== "";
      return hasQuery || trust.privateSource !== undefined ? held() : undefined;
    }
    case "mcp":
      return send.readOnly ? undefined : held();
    case "helper":
      return trust.privateSource === undefined ? undefined : held();
  }
}

function actionOf(send: OutwardSend): string {
  switch (send.kind) {
    case "fetch":
      return `fetch ${send.address.slice(0, 300)}`;
    case "mcp":
      return `run ${send.tool} on the MCP server ${send.server}`;
    case "helper":
      return `start a helper with the task “${send.task.slice(0, 200)}”`;
  }
}

function sourceOf(outside: string, privateFrom: string | undefined): string {
  return privateFrom === undefined
    ? outside
    : `${outside}; it has also read ${privateFrom}, which this could carry out of the chat`;
}

/** Every http(s) address in a text, normalised as `web_fetch` normalises them (so that both compare equal). */
export function addressesIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/https?:\/\/[^\s<>"'`)\]]+/gi)) {
    const candidates = [match[0], match[0].replace(/[.,;:!?]+$/, "")];
    for (const candidate of candidates) {
      const address = normalised(candidate);
      if (address !== undefined) found.push(address);
    }
  }
  return found;
}

/** Notes the addresses people in the chat wrote in the turn's window (their own messages, not the model's). */
export function noteAddressesPeopleWrote(trust: TurnTrust, window: readonly HistoryMessage[]): void {
  for (const message of window) {
    if (message.role === "user") trust.noteShown(addressesIn(message.content));
  }
}

function normalised(text: string): string | undefined {
  try {
    const url = new URL(text);
    url.hash = "";
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
