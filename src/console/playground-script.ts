/**
 * The playground page's script (served as /console/playground/app.js, the only script in the console): it long-polls
 * the chat's state through the console and draws it as a Telegram client would: the bot's HTML (only Telegram's
 * tags kept), rich messages (tables, headings, task lists, details, math as code: drawn by the stand-in, only the
 * tags a client draws kept), edits in place, the draft while it streams with its thinking block and stop control,
 * "typing…", reactions, buttons and their answers, voice messages as players, in the group the bot is not in, who
 * wrote each message and which answers came as a guest, and a switch that plays a Bot API server without rich messages.
 * Widgets (Bot API 10.4) run in sandboxed frames (see widget-frame.ts) whose queries it carries to the bot and back;
 * ephemeral replies show as the presser sees them, marked "only you".
 */
export const PLAYGROUND_SCRIPT = `
"use strict";
const log = document.getElementById("log");
const draft = document.getElementById("draft");
const typing = document.getElementById("typing");
const notes = document.getElementById("notes");
const tabs = document.getElementById("chats");
const form = document.getElementById("say");
const input = document.getElementById("text");
const speak = document.getElementById("speak");
const as = document.getElementById("as");
const rich = document.getElementById("rich");
const ALLOWED = new Set(["B","STRONG","I","EM","U","INS","S","STRIKE","DEL","CODE","PRE","A","BLOCKQUOTE","TG-SPOILER","SPAN","BR"]);
const RICH_ALLOWED = new Set([...ALLOWED, "P","H1","H2","H3","H4","H5","H6","UL","OL","LI","TABLE","THEAD","TBODY","TR","TH","TD","HR","DETAILS","SUMMARY","SUP","SUB","MARK","INPUT"]);
const RICH_CLASSES = new Set(["thinking", "math"]);
let version = -1;
let lastNote = 0;
let chat = "";
let polling = new AbortController();

/**
 * Draws Telegram's HTML (or the stand-in's rendering of a rich message) into the page as a client would: only the
 * tags in \`allowed\` (and their few attributes a client reads, classes only from \`classes\`); anything else is
 * replaced by its content, so nothing the bot sent can run here.
 */
function drawHtml(html, into, allowed, classes) {
  const parsed = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
  const copy = (from, to) => {
    for (const node of from.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) { to.append(node.textContent); continue; }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (!allowed.has(node.tagName)) { copy(node, to); continue; }
      if (node.tagName === "INPUT" && node.getAttribute("type") !== "checkbox") continue;
      const element = document.createElement(node.tagName === "TG-SPOILER" ? "span" : node.tagName.toLowerCase());
      if (node.tagName === "TG-SPOILER") element.className = "spoiler";
      const kind = node.getAttribute("class");
      if (kind && classes.has(kind)) element.className = kind;
      if (node.tagName === "INPUT") { element.type = "checkbox"; element.disabled = true; element.checked = node.hasAttribute("checked"); }
      if (node.tagName === "DETAILS" && node.hasAttribute("open")) element.open = true;
      if ((node.tagName === "TH" || node.tagName === "TD") && /^(left|center|right)$/.test(node.getAttribute("align") || "")) {
        element.style.textAlign = node.getAttribute("align");
      }
      if (node.tagName === "A" && /^https?:/i.test(node.getAttribute("href") || "")) {
        element.href = node.getAttribute("href");
        element.rel = "noopener noreferrer";
        element.target = "_blank";
      }
      copy(node, element);
      to.append(element);
    }
  };
  copy(parsed.body, into);
}

function telegramHtml(html, into) {
  drawHtml(html.replace(/\\n/g, "<br>"), into, ALLOWED, new Set());
}

function richHtml(html, into) {
  drawHtml(html, into, RICH_ALLOWED, RICH_CLASSES);
}

function bubble(message) {
  const item = document.createElement("li");
  item.className = "bubble " + message.from + (message.richHtml ? " rich" : "");
  item.dataset.id = String(message.id);
  const body = document.createElement("div");
  body.className = "body";
  if (message.voice) {
    // A voice message: the page plays what the bot sent through sendVoice (or your own voice note).
    const player = document.createElement("audio");
    player.controls = true;
    player.preload = "metadata";
    player.src = "/console/playground/" + message.voice.url;
    item.append(player);
  }
  if (message.widget) {
    // A widget: its own document in a sandboxed frame (scripts, no same origin, no network), kept across redraws.
    item.dataset.key = "widget-" + chat + "-" + message.id;
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.title = "widget";
    frame.className = "widget";
    frame.dataset.message = String(message.id);
    frame.style.height = (message.widget.height || 300) + "px";
    frame.src = "/console/playground/frame/" + chat + "/" + message.id;
    item.append(frame);
  }
  if (message.ephemeral) item.classList.add("ephemeral");
  if (message.from === "bot" && message.richHtml) richHtml(message.richHtml, body);
  else if (message.from === "bot" && message.html) telegramHtml(message.text, body);
  else body.textContent = message.text;
  if (message.text !== "") item.append(body);
  const meta = document.createElement("div");
  meta.className = "meta";
  const by = !message.by ? "" : message.from === "bot" ? "guest, summoned by " + message.by + " · " : message.by + " · ";
  meta.textContent =
    (message.ephemeral ? "only you can see this · " : "") + by + (message.edited ? "edited · " : "") + new Date(message.at).toLocaleTimeString();
  if (message.reaction) {
    const reaction = document.createElement("span");
    reaction.className = "reaction";
    reaction.textContent = message.reaction;
    meta.prepend(reaction);
  }
  item.append(meta);
  for (const row of message.buttons) {
    const line = document.createElement("div");
    line.className = "buttons";
    for (const button of row) {
      const press = document.createElement("button");
      press.type = "button";
      press.textContent = button.text;
      press.addEventListener("click", () => post("press", { chat, messageId: message.id, data: button.data }));
      line.append(press);
    }
    item.append(line);
  }
  return item;
}

/**
 * Puts the new bubbles in place of the old ones, keeping a widget's bubble that is already there: a frame moved or
 * replaced would load again and lose what its widget is doing.
 */
function redraw(items) {
  items.forEach((item, index) => {
    const old = log.children[index];
    if (old && item.dataset.key && old.dataset.key === item.dataset.key) return;
    if (old) log.replaceChild(item, old);
    else log.append(item);
  });
  while (log.children.length > items.length) log.lastElementChild.remove();
}

/** A widget's query (its frame's bridge posts it): sent to the bot as a widget_query, its answer handed back. */
window.addEventListener("message", async (event) => {
  const query = event.data && event.data.widgetQuery;
  if (!query) return;
  const frame = [...document.querySelectorAll("iframe.widget")].find((each) => each.contentWindow === event.source);
  if (!frame) return;
  const response = await fetch("/console/playground/widget", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chat, messageId: Number(frame.dataset.message), data: String(query.data) }),
  });
  const result = response.ok ? await response.json() : { ok: false };
  if (!result.ok) showNote("The widget got no answer" + (result.error ? ": " + result.error : "."));
  event.source.postMessage({ widgetAnswer: { id: query.id, answer: result.ok ? result.answer : "" } }, "*");
});

function showNote(text) {
  const item = document.createElement("li");
  item.textContent = text;
  notes.append(item);
  setTimeout(() => item.remove(), 6000);
}

function renderTabs(state) {
  tabs.replaceChildren(...state.chats.map((entry) => {
    const tab = document.createElement("button");
    tab.type = "button";
    tab.className = "quiet";
    tab.dataset.chat = String(entry.id);
    if (entry.id === state.chat) tab.setAttribute("aria-current", "true");
    tab.textContent = entry.name + " (" + entry.note + ")";
    tab.addEventListener("click", () => {
      if (String(entry.id) === chat) return;
      chat = String(entry.id);
      version = -1;
      lastNote = Number.MAX_SAFE_INTEGER;
      polling.abort();
    });
    return tab;
  }));
}

function render(state) {
  renderTabs(state);
  as.hidden = state.chat >= 0;
  if (lastNote === Number.MAX_SAFE_INTEGER) lastNote = Math.max(0, ...state.notes.map((note) => note.id));
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  redraw(state.messages.map(bubble));
  draft.hidden = !state.draft;
  draft.replaceChildren();
  draft.classList.toggle("rich", Boolean(state.draft && state.draft.richHtml));
  if (state.draft) {
    const body = document.createElement("div");
    body.className = "body";
    if (state.draft.richHtml) richHtml(state.draft.richHtml, body);
    else body.textContent = state.draft.text;
    draft.append(body);
    if (state.draft.canStop) {
      const stop = document.createElement("button");
      stop.type = "button";
      stop.className = "stop";
      stop.textContent = "⏹ Stop generating";
      const draftId = state.draft.id;
      stop.addEventListener("click", () => post("stop", { chat, draftId }));
      draft.append(stop);
    }
  }
  rich.checked = state.richMessages !== false;
  typing.hidden = !state.typing || Boolean(state.draft);
  for (const note of state.notes) {
    if (note.id <= lastNote) continue;
    lastNote = note.id;
    showNote(note.text);
  }
  if (atBottom || state.messages.length < 3) log.scrollTop = log.scrollHeight;
}

async function post(path, body) {
  const response = await fetch("/console/playground/" + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) showNote("The playground answered " + response.status + ": " + (await response.text()).slice(0, 200));
}

async function poll() {
  for (;;) {
    polling = new AbortController();
    try {
      const query = "since=" + version + (chat ? "&chat=" + chat : "");
      const response = await fetch("/console/playground/state?" + query, { signal: polling.signal });
      if (response.status === 401 || response.redirected) { location.href = "/console/sign-in"; return; }
      const state = await response.json();
      if (chat && String(state.chat) !== chat) continue;
      chat = String(state.chat);
      version = state.version;
      render(state);
    } catch (error) {
      if (error.name !== "AbortError") await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

rich.addEventListener("change", () => post("telegram", { chat, richMessages: rich.checked }));

function say(voice) {
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  post("send", { chat, text, voice, as: as.hidden ? undefined : as.value });
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  say(false);
});
speak.addEventListener("click", () => say(true));
poll();
`;
