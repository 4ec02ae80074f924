// Constants the bundler writes into the Worker (wrangler.toml's [define], overridden on the command line).

/**
 * Whether the console's playground (src/console/playground.tsx, which talks to the Bot API stand-in `npm run dev`
 * starts) is built in: false in wrangler.toml, so a deployed Worker carries none of it; `npm run dev` and the
 * benchmark's `wrangler dev` with PLAYGROUND_URL pass `--define WITH_PLAYGROUND:true`.
 */
declare const WITH_PLAYGROUND: boolean;
