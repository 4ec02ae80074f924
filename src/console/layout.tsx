import type { Child } from "hono/jsx";

/** Small enough to inline on every page; one column on a phone, tables scroll sideways. */
const STYLE = `
*{box-sizing:border-box}body{font:16px/1.45 system-ui,sans-serif;margin:0;color:#1d2228;background:#f6f7f9}
header{background:#20303f;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
header a{color:#cfe3ff;text-decoration:none}header a[aria-current]{color:#fff;font-weight:600}
header form{margin-left:auto}main{max-width:62rem;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e3e6ea;vertical-align:top}th{font-size:.85rem;color:#56606b}
label{display:block;margin:.7rem 0 .2rem;font-weight:600}input,select,textarea{font:inherit;width:100%;max-width:32rem;padding:.4rem;border:1px solid #b8c0c8;border-radius:4px}
textarea{min-height:6rem}button{font:inherit;padding:.4rem .9rem;border:0;border-radius:4px;background:#2563eb;color:#fff;cursor:pointer}
button.quiet{background:#e6e9ee;color:#1d2228}.error{color:#b42318;font-size:.9rem}.invalid{border-color:#b42318}
.notice{padding:.6rem .8rem;border-radius:4px;background:#e8f1ff;margin:0 0 1rem}.notice.bad{background:#fdecea}
.hint{color:#56606b;font-size:.9rem}.inline{display:inline}.row{display:flex;flex-wrap:wrap;gap:.4rem}
svg{max-width:100%;height:auto;background:#fff}code{font-size:.9em}
`;

const PAGES = [
  { path: "/console/chats", label: "Chats" },
  { path: "/console/people", label: "People" },
  { path: "/console/access", label: "Access" },
  { path: "/console/skills", label: "Skills" },
  { path: "/console/usage", label: "Usage" },
  { path: "/console/settings", label: "Settings" },
  { path: "/console/health", label: "Health" },
] as const;

export function Layout(props: {
  title: string;
  current?: string;
  signedIn: boolean;
  extraPages?: { path: string; label: string }[];
  children: Child;
}) {
  const pages = [...PAGES, ...(props.extraPages ?? [])];
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · console`}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <header>
          <strong>Console</strong>
          {props.signedIn &&
            pages.map((page) => (
              <a href={page.path} aria-current={props.current === page.path ? "page" : undefined}>
                {page.label}
              </a>
            ))}
          {props.signedIn && (
            <form method="post" action="/console/sign-out">
              <button type="submit" class="quiet">
                Sign out
              </button>
            </form>
          )}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

export function Notice(props: { text: string | undefined; bad?: boolean }) {
  if (!props.text) return null;
  return (
    <p class={props.bad ? "notice bad" : "notice"} role={props.bad ? "alert" : "status"}>
      {props.text}
    </p>
  );
}

/** A time as people read it, in UTC (the console does not know the viewer's zone without script). */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

export function formatUsd(amount: number): string {
  return `$${amount < 1 ? amount.toFixed(4) : amount.toFixed(2)}`;
}
