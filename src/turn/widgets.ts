import { errorText } from "../lib/errors.ts";
import { failureOf } from "../telegram/failure.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { WidgetTap } from "../telegram/update.ts";
import { ToolError } from "../tools/registry.ts";
import {
  toggled,
  type WidgetSpec,
  type WidgetState,
  widgetFallback,
  widgetHtml,
  widgetStateSchema,
} from "../widgets/widget-kinds.ts";
import { checkWidget, fitsWidgetData } from "../widgets/widget-rules.ts";
import { type ShownWidget, widgetsRefusedSlot, widgetsSlot } from "../widgets/widget-slots.ts";
import type { ChatContext } from "./chat-context.ts";
import { askQuestion } from "./questions.ts";

/** Widgets whose state a chat keeps: the newest ones. */
const KEPT_WIDGETS = 20;
/** After Telegram refused a widget here, answers go as messages this long before a widget is tried again. */
const REFUSED_FOR_MS = 24 * 60 * 60 * 1000;

type WidgetContext = Pick<ChatContext, "stores" | "telegram" | "outbox" | "target" | "chat" | "now">;

/**
 * Shows an answer as a widget in a private chat, within Telegram's rules (checked before sending); elsewhere, or when
 * Telegram refuses it, the same answer goes as a message, once: a choice as a question with buttons, the rest as
 * Markdown. A widget the model wrote that breaks the rules is its error to fix. Returns what the model is told.
 */
export async function showWidget(ctx: WidgetContext, spec: WidgetSpec, askers: readonly number[]): Promise<string> {
  const html = widgetHtml(spec);
  const check = await checkWidget(html);
  if (!check.ok && spec.kind === "html") throw new ToolError(`Not sent: ${check.problem}.`);
  if (!check.ok) return asMessage(ctx, spec, askers, check.problem);
  if (ctx.chat.type !== "private") return asMessage(ctx, spec, askers, "widgets go to private chats only");
  const refused = ctx.stores.meta.get(widgetsRefusedSlot);
  if (refused && refused.until > ctx.now()) return asMessage(ctx, spec, askers, refused.reason);

  const state: WidgetState = {};
  let messageId: number;
  try {
    messageId = await ctx.telegram.sendWidget(ctx.target, { html, chatData: JSON.stringify(state) });
  } catch (error) {
    const failure = failureOf(error);
    // Unavailable: the widget may have arrived; sending the message as well could show the answer twice.
    if (failure.kind === "unavailable") throw new ToolError(`Telegram did not take the widget: ${failure.description}`);
    ctx.stores.meta.set(widgetsRefusedSlot, {
      until: ctx.now() + REFUSED_FOR_MS,
      reason: `Telegram refused a widget (${failure.description.slice(0, 200)})`,
    });
    return asMessage(ctx, spec, askers, `Telegram refused the widget (${failure.description})`);
  }
  remember(ctx, {
    messageId,
    kind: spec.kind,
    title: spec.title,
    labels: labelsOf(spec),
    state,
    sentAt: ctx.now(),
  });
  const taps =
    spec.kind === "checklist"
      ? "Ticks are kept by the bot and survive a reload."
      : spec.kind === "choice" || spec.kind === "html"
        ? "A tap comes back to you as the person's next message."
        : "";
  return (
    `Shown as an interactive widget (${check.bytes} bytes, ${check.compressedBytes} compressed). ${taps} ` +
    "Do not repeat its content; end with at most one short line."
  );
}

/** The same answer where a widget cannot go: a choice as buttons, anything else as Markdown (through the outbox). */
async function asMessage(
  ctx: WidgetContext,
  spec: WidgetSpec,
  askers: readonly number[],
  why: string,
): Promise<string> {
  if (spec.kind === "choice") {
    await askQuestion(ctx, { question: spec.title, choices: spec.options.slice(0, 8), askers });
    return `Not a widget (${why}): asked as a question with buttons instead; the tap comes back as their next message. End with at most one short line.`;
  }
  if ((await ctx.outbox.postMarkdown("answer", ctx.target, widgetFallback(spec))) === "refused") {
    throw new ToolError("Telegram refused the message");
  }
  return `Not a widget (${why}): sent as a message instead. Do not repeat its content; end with at most one short line.`;
}

/** What a tap in a widget comes to: the answer for the widget (its new state), and a turn input if it needs the model. */
export interface WidgetTapResult {
  answer: string;
  /** The state to keep as the widget's chat data (so a reopened widget shows it), when it changed. */
  chatData?: string;
  choice?: IncomingMessage;
}

/**
 * A tap in one of this chat's widgets, answered from its stored state at once (a checklist's tick): the new state is
 * the answer and the widget's chat data. A tap that needs the model (a choice, the model's own widget) also becomes
 * the person's next message, marked as such. Unknown widgets get an empty answer.
 */
export function tapWidget(
  ctx: Pick<ChatContext, "stores" | "chat" | "target" | "now">,
  tap: WidgetTap,
): WidgetTapResult {
  const widgets = ctx.stores.meta.get(widgetsSlot) ?? [];
  const widget = widgets.find((shown) => shown.messageId === tap.messageId);
  if (!widget) return { answer: "" };
  const index = /^[tc]:(\d{1,2})$/.exec(tap.data);
  let state: WidgetState = widget.state;
  let said: string | undefined;
  switch (widget.kind) {
    case "checklist":
      if (!index || !tap.data.startsWith("t:") || Number(index[1]) >= widget.labels.length) return { answer: "" };
      state = toggled(widget.state, Number(index[1]));
      break;
    case "choice": {
      const option = index && tap.data.startsWith("c:") ? widget.labels[Number(index[1])] : undefined;
      if (option === undefined) return { answer: "" };
      state = { c: Number(index![1]) };
      said = `[Chose "${option}" in your widget "${widget.title}"]`;
      break;
    }
    case "html":
      said = `[Tapped in your widget "${widget.title}": ${JSON.stringify(tap.data)}]`;
      break;
    case "chart":
      return { answer: "" };
  }
  const chatData = JSON.stringify(widgetStateSchema.parse(state));
  if (!fitsWidgetData(chatData)) return { answer: "" };
  ctx.stores.meta.set(
    widgetsSlot,
    widgets.map((shown) => (shown === widget ? { ...shown, state } : shown)),
  );
  return {
    answer: chatData,
    ...(chatData !== JSON.stringify(widget.state) ? { chatData } : {}),
    ...(said === undefined
      ? {}
      : {
          choice: {
            updateId: 0,
            messageId: tap.messageId,
            chat: ctx.chat,
            ...(ctx.target.threadId !== undefined ? { threadId: ctx.target.threadId } : {}),
            from: { id: tap.userId, name: tap.userName },
            text: said,
            date: Math.floor(ctx.now() / 1000),
          },
        }),
  };
}

/** Stores a widget's new state as its chat data in Telegram; a failure is logged (the stored state stays right). */
export async function keepWidgetData(
  ctx: Pick<ChatContext, "telegram" | "target">,
  messageId: number,
  chatData: string,
) {
  try {
    await ctx.telegram.editWidgetData(ctx.target, messageId, chatData);
  } catch (error) {
    console.warn("keeping a widget's state in Telegram failed", errorText(error));
  }
}

function remember(ctx: Pick<ChatContext, "stores">, widget: ShownWidget): void {
  const widgets = ctx.stores.meta.get(widgetsSlot) ?? [];
  ctx.stores.meta.set(widgetsSlot, [...widgets, widget].slice(-KEPT_WIDGETS));
}

function labelsOf(spec: WidgetSpec): string[] {
  switch (spec.kind) {
    case "checklist":
      return spec.items;
    case "choice":
      return spec.options;
    case "chart":
      return spec.labels;
    case "html":
      return [];
  }
}
