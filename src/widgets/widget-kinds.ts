import * as z from "zod";

/**
 * The widgets the bot builds itself (a checklist, a choice, a small chart), and the model's own HTML. Each kind has
 * the same answer as Markdown for where a widget cannot go (a group, a server without widgets, a refusal), and the
 * state the chat's object keeps for it (the widget's chat data).
 *
 * How a widget's script talks to Telegram: the built-in kinds use one small bridge, `window.TelegramWidget`
 * (`chatData`, `query(data) → Promise<answer>`, `onData(callback)`), kept in BRIDGE below. No page read here
 * (https://core.telegram.org/bots/widgets as the search corpora hold it) gave the script API's names, so these are this
 * project's, the playground provides them, and a change to Telegram's is a change here only.
 */
export type WidgetSpec =
  | { kind: "checklist"; title: string; items: string[] }
  | { kind: "choice"; title: string; options: string[] }
  | { kind: "chart"; title: string; labels: string[]; values: number[]; unit?: string }
  | { kind: "html"; title: string; html: string; fallback: string };

/** What the chat's object keeps of a widget's state, which is also its chat data (JSON, far within 1,024 bytes). */
export const widgetStateSchema = z.object({
  /** A checklist's ticked items, by index. */
  t: z.array(z.number().int().min(0).max(29)).max(30).optional(),
  /** A choice's chosen option, by index. */
  c: z.number().int().min(0).max(7).optional(),
});
export type WidgetState = z.infer<typeof widgetStateSchema>;

const STYLE =
  "<style>*{box-sizing:border-box}body{margin:0;font:15px system-ui,sans-serif;color:var(--tg-text-color,#222)}" +
  "h3{margin:4px 0 8px;font-size:16px}label,button{display:block;width:100%;text-align:left;margin:4px 0;" +
  "padding:8px;border-radius:8px;border:1px solid #ccc;background:none;font:inherit;color:inherit}" +
  ".on{background:#d6f5d6;border-color:#5b5}.done{text-decoration:line-through;opacity:.6}</style>";

/** The bridge to Telegram (see above): the state as JSON, a query whose answer is the new state, and redraws. */
const BRIDGE =
  "var W=window.TelegramWidget||{chatData:'{}',query:function(){return Promise.resolve('')},onData:function(){}};" +
  "function st(){try{return JSON.parse(W.chatData||'{}')||{}}catch(e){return {}}}" +
  "function ask(d){W.query(d).then(function(a){if(a){W.chatData=a;draw()}})}" +
  "W.onData(function(){draw()});";

export function widgetHtml(spec: WidgetSpec): string {
  switch (spec.kind) {
    case "checklist":
      return page(
        spec.title,
        `<div id="l"></div><script>var I=${json(spec.items)};${BRIDGE}` +
          "function draw(){var t=st().t||[],h='';for(var i=0;i<I.length;i++){var on=t.indexOf(i)>=0;" +
          "h+='<label class=\"'+(on?'on done':'')+'\" onclick=\"ask(\\'t:'+i+'\\')\">'+(on?'☑ ':'☐ ')+esc(I[i])+'</label>'}" +
          "document.getElementById('l').innerHTML=h+'<p>'+t.length+' of '+I.length+' done</p>'}" +
          `${ESC}draw();</script>`,
      );
    case "choice":
      return page(
        spec.title,
        `<div id="l"></div><script>var O=${json(spec.options)};${BRIDGE}` +
          "function draw(){var c=st().c,h='';for(var i=0;i<O.length;i++){" +
          "h+='<button class=\"'+(c===i?'on':'')+'\" onclick=\"ask(\\'c:'+i+'\\')\">'+(c===i?'✓ ':'')+esc(O[i])+'</button>'}" +
          "document.getElementById('l').innerHTML=h}" +
          `${ESC}draw();</script>`,
      );
    case "chart":
      return page(spec.title, barChart(spec.labels, spec.values, spec.unit));
    case "html":
      return spec.html;
  }
}

/** The same answer as Markdown, for where a widget cannot go. */
export function widgetFallback(spec: WidgetSpec, state: WidgetState = {}): string {
  switch (spec.kind) {
    case "checklist":
      return [
        `**${spec.title}**`,
        "",
        ...spec.items.map((item, index) => `- [${state.t?.includes(index) ? "x" : " "}] ${item}`),
      ].join("\n");
    case "choice":
      return [`**${spec.title}**`, "", ...spec.options.map((option, index) => `${index + 1}. ${option}`)].join("\n");
    case "chart": {
      const max = Math.max(...spec.values.map(Math.abs), 1);
      const rows = spec.labels.map((label, index) => {
        const value = spec.values[index] ?? 0;
        const bar = "█".repeat(Math.max(0, Math.round((Math.abs(value) / max) * 12)));
        return `| ${label} | ${value}${spec.unit ?? ""} | ${bar} |`;
      });
      return [`**${spec.title}**`, "", "| | Value | |", "|---|---:|---|", ...rows].join("\n");
    }
    case "html":
      return spec.fallback;
  }
}

/** A checklist's state after a tap on item `index` (ticked, or unticked if it was). */
export function toggled(state: WidgetState, index: number): WidgetState {
  const ticks = new Set(state.t ?? []);
  if (ticks.has(index)) ticks.delete(index);
  else ticks.add(index);
  return { ...state, t: [...ticks].sort((a, b) => a - b) };
}

const ESC = "function esc(s){return String(s).replace(/[&<>\"']/g,function(c){return '&#'+c.charCodeAt(0)+';'})}";

function page(title: string, body: string): string {
  return `<!doctype html><meta charset="utf-8">${STYLE}<h3>${escapeHtml(title)}</h3>${body}`;
}

/** Horizontal bars as inline SVG: no script, nothing to load. */
function barChart(labels: string[], values: number[], unit = ""): string {
  const max = Math.max(...values.map(Math.abs), 1);
  const rowHeight = 26;
  const rows = labels.map((label, index) => {
    const value = values[index] ?? 0;
    const width = Math.round((Math.abs(value) / max) * 180);
    const y = index * rowHeight;
    return (
      `<text x="0" y="${y + 17}" font-size="13">${escapeHtml(label.slice(0, 18))}</text>` +
      `<rect x="120" y="${y + 5}" width="${width}" height="16" rx="3" fill="#4a90d9"/>` +
      `<text x="${126 + width}" y="${y + 17}" font-size="12">${escapeHtml(`${value}${unit}`)}</text>`
    );
  });
  return `<svg width="100%" viewBox="0 0 360 ${labels.length * rowHeight}" role="img">${rows.join("")}</svg>`;
}

function json(value: unknown): string {
  // Inside a script: no "</script>" or "<!--" can end it early.
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
