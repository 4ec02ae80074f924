import { existsSync } from "node:fs";

/** Debian's package (`apt-get install chromium`); CHROMIUM_PATH names another. Browser downloads are not possible. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
