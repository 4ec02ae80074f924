/** A DevTools protocol session with the Worker's isolate under `wrangler dev`, through wrangler's inspector proxy. */
export interface Inspector {
  send(method: string, params?: unknown): Promise<unknown>;
  /** Evaluates an expression in the Worker's global scope and returns its value (JSON-able values only). */
  evaluate(expression: string): Promise<unknown>;
  close(): void;
}

export async function connectInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
    webSocketDebuggerUrl: string;
    title: string;
  }[];
  const target = targets.find((entry) => !entry.title.includes("ProxyWorker")) ?? targets[0]!;
  // wrangler's inspector proxy wants an Origin header, as DevTools sends one.
  const socket = new WebSocket(target.webSocketDebuggerUrl, {
    headers: { origin: "https://devtools.devprod.cloudflare.dev" },
  } as unknown as string[]);
  await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
  let nextId = 1;
  const pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  let contextId: number | undefined;
  let contextSeen: (() => void) | undefined;
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      method?: string;
      params?: { context?: { id: number } };
      result?: unknown;
      error?: { message: string };
    };
    // The proxy answers some commands by echoing them with their id; Profiler.stop comes back with its result.
    if (message.id && pending.has(message.id)) pending.get(message.id)!(message);
    if (message.method === "Runtime.executionContextCreated" && message.params?.context) {
      contextId = message.params.context.id;
      contextSeen?.();
    }
  });
  const call = (method: string, params: unknown = {}) =>
    new Promise<{ result?: unknown; error?: { message: string } }>((resolve) => {
      const id = nextId++;
      pending.set(id, (message) => {
        pending.delete(id);
        resolve(message);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async send(method, params) {
      return (await call(method, params)).result;
    },
    async evaluate(expression) {
      // The runtime has no default context to evaluate in: the Worker's is announced once Runtime is enabled.
      if (contextId === undefined) {
        const seen = new Promise<void>((resolve) => {
          contextSeen = resolve;
        });
        await call("Runtime.enable");
        await Promise.race([seen, new Promise((resolve) => setTimeout(resolve, 5000))]);
        if (contextId === undefined) throw new Error("the inspector announced no execution context");
      }
      const answer = await call("Runtime.evaluate", { expression, contextId, returnByValue: true });
      const result = answer.result as
        | { result?: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }
        | undefined;
      if (answer.error || !result || result.exceptionDetails) {
        const why =
          answer.error?.message ?? result?.exceptionDetails?.exception?.description ?? result?.exceptionDetails?.text;
        throw new Error(`evaluating ${expression} failed: ${why}`);
      }
      return result.result?.value;
    },
    close() {
      socket.close();
    },
  };
}
