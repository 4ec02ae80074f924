import {
  type Account,
  type AccountOptions,
  type Binding,
  closeAccount,
  createAccount,
  currentVersion,
  publicBinding,
  type WorkerScript,
} from "./accounts.ts";
import type { PendingImport } from "./d1-import.ts";
import type { Plan, SizeRule } from "./plan-limits.ts";
import type { Violation } from "./violations.ts";

/**
 * Everything the fake holds: the token it accepts, the accounts that token can use, and the violations recorded. Tests
 * read it through the accessors below (in process) or `GET /__control/state` (from another process).
 */
export class CloudflareState {
  token: string;
  /** The OAuth token a `wrangler login` would leave (wrangler's default scopes), if the fake accepts one. */
  oauthToken: string | undefined;
  readonly accounts = new Map<string, Account>();
  readonly violations: Violation[] = [];
  /** `d1 execute --file` imports under way, by the file name handed out for the upload. */
  readonly d1Imports = new Map<string, PendingImport>();
  private initial: AccountOptions[];

  constructor(token: string, accounts: AccountOptions[], oauthToken?: string) {
    this.token = token;
    this.oauthToken = oauthToken;
    this.initial = accounts;
    this.reset();
  }

  /** Back to empty accounts (the ones given, or the ones the fake started with) and no violations. */
  reset(accounts: AccountOptions[] = this.initial): void {
    for (const account of this.accounts.values()) closeAccount(account);
    this.accounts.clear();
    this.violations.length = 0;
    this.d1Imports.clear();
    this.initial = accounts;
    for (const options of accounts) this.accounts.set(options.id, createAccount(options));
  }

  /** Switches an account's plan, R2 or size rule, keeping what is in it. */
  configure(accountId: string, change: { plan?: Plan; r2?: boolean; sizeRule?: SizeRule; subdomain?: string }): void {
    const account = this.account(accountId);
    if (change.plan !== undefined) account.plan = change.plan;
    if (change.r2 !== undefined) account.r2 = change.r2;
    if (change.sizeRule !== undefined) account.sizeRule = change.sizeRule;
    if (change.subdomain !== undefined) account.subdomain = change.subdomain;
  }

  account(accountId: string): Account {
    const account = this.accounts.get(accountId);
    if (!account) throw new Error(`no fake account ${accountId}`);
    return account;
  }

  script(accountId: string, name: string): WorkerScript | undefined {
    return this.account(accountId).scripts.get(name);
  }

  /** The bindings of the version a Worker serves now (secret values left out). */
  bindings(accountId: string, scriptName: string): Binding[] {
    const script = this.script(accountId, scriptName);
    const version = script && currentVersion(script);
    return (version?.bindings ?? []).map(publicBinding);
  }

  secretNames(accountId: string, scriptName: string): string[] {
    return this.bindings(accountId, scriptName)
      .filter((binding) => binding.type === "secret_text")
      .map((binding) => binding.name)
      .sort();
  }

  /** Runs SQL on a D1 database (by name or uuid) and returns its rows, for assertions. */
  query(accountId: string, database: string, sql: string, ...params: (string | number | null)[]): unknown[] {
    const account = this.account(accountId);
    const found = account.d1.get(database) ?? [...account.d1.values()].find((db) => db.name === database);
    if (!found) throw new Error(`no D1 database ${database} in ${accountId}`);
    return found.sqlite.prepare(sql).all(...params);
  }

  /** A JSON picture of every account, for `GET /__control/state` and for test failure messages. */
  report(): unknown {
    return [...this.accounts.values()].map((account) => ({
      id: account.id,
      plan: account.plan,
      r2: account.r2,
      subdomain: account.subdomain,
      sizeRule: account.sizeRule,
      scripts: [...account.scripts.values()].map((script) => {
        const version = currentVersion(script);
        return {
          name: script.name,
          versions: script.versions.length,
          migrationTag: script.migrationTag,
          migrationsApplied: script.migrationsApplied,
          workersDev: script.workersDev,
          observability: script.settings.observability,
          compatibilityDate: version?.compatibilityDate,
          compatibilityFlags: version?.compatibilityFlags,
          mainModule: version?.mainModule,
          modules: version?.modules.map((module) => ({ name: module.name, bytes: module.bytes.byteLength })),
          size: version?.size,
          placement: version?.placement,
          containers: version?.containers,
          bindings: this.bindings(account.id, script.name),
        };
      }),
      durableObjects: [...account.durableObjects.values()],
      d1: [...account.d1.values()].map((database) => ({ uuid: database.uuid, name: database.name })),
      kv: [...account.kv.values()].map((namespace) => ({
        id: namespace.id,
        title: namespace.title,
        keys: [...namespace.keys.keys()],
      })),
      buckets: [...account.buckets.values()].map((bucket) => ({
        name: bucket.name,
        objects: [...bucket.objects.keys()],
      })),
      containers: [...account.containers.values()],
    }));
  }
}
