import * as z from "zod";
import type { WidgetSpec } from "../widgets/widget-kinds.ts";
import { WIDGET_LIMITS } from "../widgets/widget-rules.ts";
import { defineTool, ToolError } from "./registry.ts";

/**
 * An answer as an interactive widget (Bot API 10.4) in a private chat: a checklist whose ticks the bot keeps, a
 * choice whose tap continues the conversation, a small bar chart, or the model's own HTML within Telegram's rules.
 * Elsewhere the same answer arrives as a message (a choice as buttons), once.
 */
export const showWidget = defineTool({
  name: "show_widget",
  description:
    "Show your answer as an interactive widget in the chat (private chats; elsewhere it arrives as a message). " +
    "kind checklist: items to tick (packing lists, steps, to-dos; the ticks are kept). kind choice: 2-8 options, the " +
    "tap comes back as the person's next message. kind chart: a bar chart of labels and values. kind html: your own " +
    `self-contained HTML document (inline CSS and JS, at most ${WIDGET_LIMITS.htmlBytes} bytes and ` +
    `${WIDGET_LIMITS.compressedBytes} after compression, no network: no external src/href, no fetch), with a ` +
    "Markdown fallback. After it, end with at most one short line; do not repeat its content.",
  schema: z.object({
    kind: z.enum(["checklist", "choice", "chart", "html"]),
    title: z.string().trim().min(1).max(120).describe("A short title shown on the widget."),
    items: z
      .array(z.string().trim().min(1).max(80))
      .max(30)
      .optional()
      .describe("checklist: the items; choice: the options (2-8); chart: the bars' labels."),
    values: z.array(z.number().finite()).max(30).optional().describe("chart: one number per label."),
    unit: z.string().max(8).optional().describe("chart: the values' unit, e.g. € or %."),
    html: z.string().max(WIDGET_LIMITS.htmlBytes).optional().describe("html: the whole document."),
    fallback: z.string().max(4000).optional().describe("html: the same answer as Markdown."),
  }),
  async handler(args, context) {
    if (!context.showWidget) throw new ToolError("Widgets cannot be shown here; answer in words.");
    return { content: await context.showWidget(specOf(args)) };
  },
});

function specOf(args: {
  kind: WidgetSpec["kind"];
  title: string;
  items?: string[] | undefined;
  values?: number[] | undefined;
  unit?: string | undefined;
  html?: string | undefined;
  fallback?: string | undefined;
}): WidgetSpec {
  const items = args.items ?? [];
  switch (args.kind) {
    case "checklist":
      if (items.length === 0) throw new ToolError("A checklist needs items.");
      return { kind: "checklist", title: args.title, items };
    case "choice":
      if (items.length < 2 || items.length > 8) throw new ToolError("A choice needs 2 to 8 items.");
      return { kind: "choice", title: args.title, options: items };
    case "chart":
      if (items.length === 0 || items.length !== args.values?.length) {
        throw new ToolError("A chart needs as many values as items (labels).");
      }
      return {
        kind: "chart",
        title: args.title,
        labels: items,
        values: args.values,
        ...(args.unit ? { unit: args.unit } : {}),
      };
    case "html":
      if (!args.html || !args.fallback) throw new ToolError("An html widget needs html and a Markdown fallback.");
      return { kind: "html", title: args.title, html: args.html, fallback: args.fallback };
  }
}
