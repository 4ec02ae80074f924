import * as z from "zod";
import { slot } from "../lib/slot.ts";
import { widgetStateSchema } from "./widget-kinds.ts";

/** A widget this chat was shown (show_widget) and the state its object keeps for it, which is its chat data. */
const shownWidgetSchema = z.object({
  messageId: z.number().int(),
  kind: z.enum(["checklist", "choice", "chart", "html"]),
  title: z.string().max(120),
  /** A checklist's items, a choice's options, a chart's labels (none for the model's own HTML). */
  labels: z.array(z.string().max(80)).max(30),
  state: widgetStateSchema,
  sentAt: z.number(),
});
export type ShownWidget = z.infer<typeof shownWidgetSchema>;

/** The widgets shown here lately (the newest 20), with their state. */
export const widgetsSlot = slot("widgets", z.array(shownWidgetSchema).max(20));
/** Telegram refused a widget here (no such method, not allowed): answers that would be widgets are messages until. */
export const widgetsRefusedSlot = slot("widgetsRefused", z.object({ until: z.number(), reason: z.string().max(300) }));
