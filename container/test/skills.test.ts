import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chatDirectoryName } from "../workspace.ts";
import { isMainLoop, toolResults } from "./fake-anthropic.ts";
import { functionOutputs, inputText, type ResponsesBody } from "./fake-openai.ts";
import { codexPayloadFor, codexRunnerAgainstFakes, payloadFor, postRun, runnerAgainstFakes } from "./helpers.ts";

/**
 * The chat's skills as native skills: the runner installs those of the run's payload, afresh each run, and makes
 * exactly those visible to Claude Code and to Codex; skills planted in the workspace, the chat's home or its state
 * directory (what an agent's shell can write), or left from an earlier run, are not listed.
 */

const PACKING = {
  name: "packing-list",
  description: "SKILL-DESCRIPTION-MARK how to write a packing list for a trip",
  body: "# Packing lists\nSKILL-BODY-MARK: group items by bag, and end with the documents.",
};
const OLD = { name: "old-skill", description: "OLD-SKILL-MARK gone since", body: "OLD-BODY" };

/** A skill file as an agent could write one. */
async function plant(directory: string, name: string): Promise<void> {
  await mkdir(path.join(directory, name), { recursive: true });
  await writeFile(
    path.join(directory, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: PLANTED-SKILL-MARK ${name}\n---\nPLANTED-BODY-MARK\n`,
  );
}

describe("Claude Code's skills", () => {
  const { api, runner } = runnerAgainstFakes();
  const stateOf = (chatKey: string) => path.join(runner.workspaceRoot, ".chat-state", chatDirectoryName(chatKey));
  const workspaceOf = (chatKey: string) => path.join(runner.workspaceRoot, chatDirectoryName(chatKey));

  it("are the payload's, listed and read with the Skill tool; planted and earlier ones are not", async () => {
    const chatKey = "chat:4001";
    // A first run installs a skill that the chat has since deleted.
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "one" }] } : undefined;
    expect((await postRun(runner.url, payloadFor(chatKey, { skills: [OLD] }))).events.at(-1)).toEqual({
      type: "result",
      text: "one",
    });
    // What an agent could write: skills in its workspace, in its config directory, and into the installed plugin.
    await plant(path.join(workspaceOf(chatKey), ".claude", "skills"), "planted-workspace");
    await plant(path.join(stateOf(chatKey), "claude", "skills"), "planted-config");
    await plant(path.join(stateOf(chatKey), "claude-skills", "skills"), "planted-plugin");

    api.reset();
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      if (toolResults(body).has("toolu_skill")) return { kind: "message", blocks: [{ type: "text", text: "packed" }] };
      return {
        kind: "message",
        blocks: [{ type: "tool_use", id: "toolu_skill", name: "Skill", input: { skill: "chat:packing-list" } }],
      };
    };
    const answer = await postRun(runner.url, payloadFor(chatKey, { skills: [PACKING] }));
    expect(answer.events.at(-1)).toEqual({ type: "result", text: "packed" });
    const first = api.mainRequests()[0]!;
    expect(first.body?.tools?.map((tool) => tool.name)).toContain("Skill");
    expect(first.raw).toContain(`chat:packing-list: ${PACKING.description}`);
    for (const absent of ["PLANTED-SKILL-MARK", "OLD-SKILL-MARK", "dataviz"]) expect(first.raw).not.toContain(absent);
    // The Skill tool read the installed file: its body reached the model.
    const after = api.mainRequests().at(-1)!;
    expect(after.raw).toContain("SKILL-BODY-MARK");
    expect(after.raw).not.toContain("PLANTED-BODY-MARK");
  });

  it("are none without skills in the payload: no Skill tool, no plugin", async () => {
    const chatKey = "chat:4002";
    await plant(path.join(workspaceOf(chatKey), ".claude", "skills"), "planted-workspace");
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "plain" }] } : undefined;
    await postRun(runner.url, payloadFor(chatKey, { skills: [PACKING] }));
    api.reset();
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "plain" }] } : undefined;
    expect((await postRun(runner.url, payloadFor(chatKey))).events.at(-1)).toEqual({ type: "result", text: "plain" });
    const request = api.mainRequests()[0]!;
    expect(request.body?.tools?.map((tool) => tool.name)).not.toContain("Skill");
    expect(request.raw).not.toContain("SKILL-DESCRIPTION-MARK");
    expect(request.raw).not.toContain("PLANTED-SKILL-MARK");
  });
});

describe("Codex's skills", () => {
  const { api, runner } = codexRunnerAgainstFakes();
  const stateOf = (chatKey: string) => path.join(runner.workspaceRoot, ".chat-state", chatDirectoryName(chatKey));
  const workspaceOf = (chatKey: string) => path.join(runner.workspaceRoot, chatDirectoryName(chatKey));
  const has = (body: ResponsesBody, text: string): boolean => JSON.stringify(body.input ?? []).includes(text);

  it("are the payload's, installed in CODEX_HOME and listed; every other SKILL.md Codex would read is off", async () => {
    const chatKey = "chat:4101";
    api.respond = () => ({ kind: "response", output: [{ type: "message", text: "one" }] });
    await postRun(runner.url, codexPayloadFor(chatKey, { skills: [OLD] }));
    for (const place of [
      path.join(workspaceOf(chatKey), ".agents", "skills"),
      path.join(workspaceOf(chatKey), ".codex", "skills"),
      path.join(stateOf(chatKey), "home", ".agents", "skills"),
      // Written beside the runner's own install, as an agent in the container could.
      path.join(stateOf(chatKey), "codex", "skills"),
    ]) {
      await plant(place, `planted-${path.basename(path.dirname(place))}`);
    }
    const installed = path.join(stateOf(chatKey), "codex", "skills", PACKING.name, "SKILL.md");

    api.reset();
    api.respond = (body) =>
      has(body, "function_call_output")
        ? { kind: "response", output: [{ type: "message", text: "packed" }] }
        : {
            kind: "response",
            output: [{ type: "function_call", name: "exec_command", arguments: { cmd: `cat '${installed}'` } }],
          };
    const answer = await postRun(runner.url, codexPayloadFor(chatKey, { skills: [PACKING] }));
    expect(answer.events.at(-1)).toEqual({ type: "result", text: "packed" });
    const [first, second] = api.modelCalls();
    const listing = inputText(first!.body);
    expect(listing).toContain(`packing-list: ${PACKING.description}`);
    for (const absent of ["PLANTED-SKILL-MARK", "OLD-SKILL-MARK", "skill-creator"])
      expect(listing).not.toContain(absent);
    expect(await readFile(installed, "utf8")).toContain("SKILL-BODY-MARK");
    expect(JSON.stringify([...functionOutputs(second!.body).values()])).toContain("SKILL-BODY-MARK");
  });

  it("lists none without skills in the payload, as before", async () => {
    const chatKey = "chat:4102";
    await plant(path.join(workspaceOf(chatKey), ".agents", "skills"), "planted");
    api.respond = () => ({ kind: "response", output: [{ type: "message", text: "plain" }] });
    await postRun(runner.url, codexPayloadFor(chatKey, { skills: [PACKING] }));
    api.reset();
    api.respond = () => ({ kind: "response", output: [{ type: "message", text: "plain" }] });
    expect((await postRun(runner.url, codexPayloadFor(chatKey))).events.at(-1)).toEqual({
      type: "result",
      text: "plain",
    });
    const listing = inputText(api.modelCalls()[0]!.body);
    expect(listing).not.toContain("SKILL-DESCRIPTION-MARK");
    expect(listing).not.toContain("PLANTED-SKILL-MARK");
    expect(listing).not.toContain("<skills_instructions>");
  });
});
