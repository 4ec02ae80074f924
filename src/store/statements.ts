/**
 * A store's statements, built on first use and then reused: drizzle's query building showed up in the benchmark's
 * profile, so the statements every message runs are prepared once per object and only their parameters change.
 */
export function preparedOnce<Statements>(build: () => Statements): () => Statements {
  let built: Statements | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
