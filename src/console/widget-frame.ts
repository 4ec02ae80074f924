/**
 * A widget as the playground draws it: its HTML in a sandboxed frame (`sandbox="allow-scripts"` without
 * `allow-same-origin`: an opaque origin, no cookies, no access to the console) under a policy with no network at all
 * (`default-src 'none'`: no fetch, no images or styles from elsewhere, only what is inline), as Telegram runs a widget
 * "with no network access at all". The frame's bridge (`window.TelegramWidget`, see src/widgets/widget-kinds.ts) hands
 * the widget its state and carries its queries to the page, which posts them to the stand-in as `widget_query`
 * updates and hands the bot's answer back.
 */
export const WIDGET_FRAME_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "sandbox allow-scripts; frame-ancestors 'self'";

/** The widget's document with the bridge first, its state as the widget's chat data. */
export function widgetFrameDocument(html: string, chatData: string): string {
  const state = JSON.stringify(chatData).replace(/</g, "\\u003c");
  const bridge =
    "<script>(function(){var next=0,waiting={},listeners=[];" +
    `var W=window.TelegramWidget={chatData:${state},` +
    "query:function(data){return new Promise(function(resolve){var id=++next;waiting[id]=resolve;" +
    "parent.postMessage({widgetQuery:{id:id,data:String(data)}},'*')})}," +
    "onData:function(callback){listeners.push(callback)}};" +
    "addEventListener('message',function(event){if(event.source!==parent)return;var m=event.data&&event.data.widgetAnswer;" +
    "if(m&&waiting[m.id]){var resolve=waiting[m.id];delete waiting[m.id];resolve(m.answer)}})})()</script>";
  return `${bridge}${html}`;
}
