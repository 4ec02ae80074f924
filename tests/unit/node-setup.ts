/**
 * The "unit" project runs in Node (tests/projects.ts decides which unit tests do). Workers runtime globals that Node
 * lacks throw with the reason instead of "is not defined".
 */
for (const name of ["HTMLRewriter", "scheduler", "WebSocketPair"]) {
  if (name in globalThis) continue;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() {
      throw new ReferenceError(
        `${name} is a Workers runtime global, and this test runs in Node: by tests/projects.ts's rule, a unit test runs ` +
          "in workerd only when it (or a file of ours it imports) imports the runtime. Import what the test uses of " +
          'the runtime from "cloudflare:workers" (`import "cloudflare:workers";` is enough) to run it in workerd.',
      );
    },
  });
}
