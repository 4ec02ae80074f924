import { Layout } from "../layout.tsx";

const STYLE = `
.chat{background:#dfe8f0;border-radius:8px;display:flex;flex-direction:column;height:min(70vh,40rem)}
#log{list-style:none;margin:0;padding:.8rem;overflow-y:auto;flex:1;display:flex;flex-direction:column;gap:.4rem}
.bubble{max-width:85%;padding:.4rem .7rem;border-radius:10px;background:#fff;white-space:pre-wrap;overflow-wrap:anywhere}
.bubble.user{align-self:flex-end;background:#d8f5c4}.bubble .meta{font-size:.75rem;color:#56606b;text-align:right}
.bubble pre{background:#f1f3f5;padding:.4rem;overflow-x:auto}.reaction{margin-right:.4rem}
.buttons{display:flex;gap:.3rem;margin-top:.3rem}.buttons button{flex:1;background:#e8f1ff;color:#1d4ed8}
.spoiler{background:#56606b;color:#56606b}.spoiler:hover{color:#fff}
#draft{align-self:flex-start;margin:0 .8rem .4rem;opacity:.8}#draft .stop{margin-top:.3rem;background:#fde8e8;color:#b91c1c}
.bubble table{border-collapse:collapse;white-space:normal;margin:.3rem 0}.bubble th,.bubble td{border:1px solid #c4d0db;padding:.15rem .45rem}
.bubble h1,.bubble h2,.bubble h3,.bubble h4,.bubble h5,.bubble h6{margin:.3rem 0;font-size:1.05rem}.bubble p{margin:.2rem 0}
.bubble ul,.bubble ol{margin:.2rem 0;padding-left:1.4rem;white-space:normal}.bubble details{border-left:3px solid #9fb3c8;padding-left:.5rem}
.bubble .thinking{color:#56606b;font-style:italic}.bubble .math{background:#fff7e0}.bubble.rich{min-width:12rem;white-space:normal}
.bubble.rich pre{white-space:pre}.bubble input[type=checkbox]{width:auto;display:inline;margin:0 .35rem 0 0}
.bubble ul:has(>li>input[type=checkbox]){list-style:none;padding-left:.3rem}
label.switch{display:flex;gap:.5rem;align-items:center;font-weight:normal;margin:.3rem 0 .6rem}label.switch input{width:auto;margin:0}
#typing{margin:0 .8rem .4rem;color:#56606b;font-size:.9rem}
#say{display:flex;gap:.4rem;padding:.6rem;border-top:1px solid #c4d0db}#say input{max-width:none;flex:1}
#chats button[aria-current]{background:#2563eb;color:#fff}
.bubble audio{display:block;width:16rem;max-width:100%;margin:.2rem 0}
#as{max-width:9rem}
.bubble iframe.widget{display:block;width:18rem;max-width:100%;border:0;border-radius:8px;background:#fff}
.bubble.ephemeral{border:1px dashed #9fb3c8;background:#f6f9fc}
#notes{list-style:none;padding:0;margin:.5rem 0}#notes li{background:#20303f;color:#fff;padding:.4rem .7rem;border-radius:6px;margin-bottom:.3rem}
`;

/** A Telegram-like private chat with the bot, drawn by /console/playground/app.js from the local Bot API stand-in. */
export function PlaygroundPage(props: { extraPages: { path: string; label: string }[] }) {
  return (
    <Layout title="Playground" current="/console/playground" signedIn extraPages={props.extraPages}>
      <style>{STYLE}</style>
      <h1>Playground</h1>
      <p class="hint">
        You play Telegram: what you type is posted to the bot's webhook as an update, and what the bot sends back
        through the Bot API (messages, rich messages, edits, drafts with their stop control, typing, reactions, buttons,
        voice messages, widgets in a sandboxed frame without network, replies only you see) lands here. 🎤 sends what
        you typed as a voice note (silent; only the stand-in model "hears" it). Your friend's chat is not allowed at
        first: pair it with <code>/pair</code>, then approve the code from your chat or the Access page. The friends'
        group does not have the bot: name it (<code>@playground_bot …</code>) to summon it as a guest. The family group
        has it: tell it about yourself in your chat ("I'm vegetarian and my daughter Mia is 7"), then mention it there
        ("@playground_bot suggest a dinner for tonight"); <code>/memory</code> shows what it keeps. Local dev only.
      </p>
      <div id="chats" class="row" style="margin-bottom:.5rem"></div>
      <label class="switch hint">
        <input id="rich" type="checkbox" checked /> Telegram takes rich messages (off: play a Bot API server without
        them, which refuses them; answers then come as Telegram HTML)
      </label>
      <div class="chat">
        <ul id="log" aria-live="polite"></ul>
        <div id="draft" class="bubble bot" hidden></div>
        <div id="typing" hidden>
          bot is typing…
        </div>
        <form id="say">
          <select id="as" aria-label="Who writes in the group" hidden>
            <option value="100001">as You</option>
            <option value="100002">as your friend</option>
          </select>
          <input id="text" name="text" autocomplete="off" placeholder="Message (try /help)" aria-label="Message" />
          <button type="button" id="speak" title="Send as a voice note" aria-label="Send as a voice note">
            🎤
          </button>
          <button type="submit">Send</button>
        </form>
      </div>
      <ul id="notes" aria-live="assertive"></ul>
      <script src="/console/playground/app.js" defer></script>
    </Layout>
  );
}
