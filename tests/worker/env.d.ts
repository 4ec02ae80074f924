import type { D1Migration } from "cloudflare:test";
import type { SettingName } from "../../src/config/settings-schema.ts";

/** The knobs the tests set as variables (vitest.config.ts's bindings); wrangler.toml declares only a handful. */
type SettingVariables = Partial<Record<SettingName, string>>;

declare global {
  namespace Cloudflare {
    interface Env extends SettingVariables {
      TEST_MIGRATIONS: D1Migration[];
      FAKES_URL: string;
      MCP_FAKE_URL: string;
      MCP_TEST_TOKEN: string;
    }
  }
}
