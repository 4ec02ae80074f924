/**
 * What the person who pressed a button is told. Most answers are a short notice over the chat (`notice`, Telegram's
 * callback answer). Where a public word would be noise for everyone else (a button that is not theirs, a stranger's
 * press, a question already answered), the answer is `private`: an ephemeral reply to the press (Bot API 10.4), a
 * message in the chat that only the presser sees, with the notice as its fallback where Telegram refuses one.
 */
export interface PressAnswer {
  kind: "notice" | "private";
  text: string;
}

export function notice(text: string): PressAnswer {
  return { kind: "notice", text };
}

export function privately(text: string): PressAnswer {
  return { kind: "private", text };
}
