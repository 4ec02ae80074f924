// Module kinds the bundler imports as text; worker-configuration.d.ts declares `*.sql` for the Worker, this covers
// the Node side (drizzle's migration bundle is read by both).
declare module "*.sql" {
  const text: string;
  export default text;
}
