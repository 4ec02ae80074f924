import { createInterface } from "node:readline";

/**
 * Asks for a secret without echoing it: on a terminal each key is read raw and nothing is printed for it; from a pipe
 * (CI, a test typing the token) one line is read. Ctrl-C ends the deploy.
 */
export async function askSecret(question: string): Promise<string> {
  process.stderr.write(question);
  const input = process.stdin;
  if (!input.isTTY) return readLine();
  return new Promise((resolve) => {
    let typed = "";
    input.setRawMode(true);
    input.resume();
    input.setEncoding("utf8");
    const onData = (chunk: string) => {
      for (const key of chunk) {
        if (key === "\u0003") {
          process.stderr.write("\n");
          process.exit(130);
        }
        if (key === "\r" || key === "\n") {
          input.setRawMode(false);
          input.pause();
          input.off("data", onData);
          process.stderr.write("\n");
          resolve(typed.trim());
          return;
        }
        if (key === "\u007f" || key === "\b") typed = typed.slice(0, -1);
        else typed += key;
      }
    };
    input.on("data", onData);
  });
}

let lines: AsyncIterator<string> | undefined;

/** The next line of a piped stdin ("" at its end). */
async function readLine(): Promise<string> {
  lines ??= createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
  const next = await lines.next();
  process.stderr.write("\n");
  return next.done ? "" : next.value.trim();
}
